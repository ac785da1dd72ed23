"""spider indexer: git repository -> code graph in Neo4j (and, later, vectors in Qdrant)."""
