// Uniqueness of (repo, snapshot, id) per label, plus the lookups every query starts from.
// Run by `spider index` before writing; safe to run again (IF NOT EXISTS).
CREATE CONSTRAINT directory_key IF NOT EXISTS FOR (n:Directory) REQUIRE (n.repo, n.snapshot, n.id) IS UNIQUE;
CREATE CONSTRAINT file_key IF NOT EXISTS FOR (n:File) REQUIRE (n.repo, n.snapshot, n.id) IS UNIQUE;
CREATE CONSTRAINT class_key IF NOT EXISTS FOR (n:Class) REQUIRE (n.repo, n.snapshot, n.id) IS UNIQUE;
CREATE CONSTRAINT function_key IF NOT EXISTS FOR (n:Function) REQUIRE (n.repo, n.snapshot, n.id) IS UNIQUE;
CREATE CONSTRAINT snapshot_key IF NOT EXISTS FOR (s:Snapshot) REQUIRE (s.repo, s.snapshot) IS UNIQUE;
CREATE CONSTRAINT index_job_key IF NOT EXISTS FOR (j:IndexJob) REQUIRE j.id IS UNIQUE;
CREATE CONSTRAINT index_job_active IF NOT EXISTS FOR (j:IndexJob) REQUIRE j.active IS UNIQUE;
CREATE INDEX function_snapshot IF NOT EXISTS FOR (n:Function) ON (n.repo, n.snapshot);
CREATE INDEX class_snapshot IF NOT EXISTS FOR (n:Class) ON (n.repo, n.snapshot);
CREATE INDEX file_snapshot IF NOT EXISTS FOR (n:File) ON (n.repo, n.snapshot);
CREATE INDEX directory_snapshot IF NOT EXISTS FOR (n:Directory) ON (n.repo, n.snapshot);
CREATE INDEX function_name IF NOT EXISTS FOR (n:Function) ON (n.name);
// Versioned graph (branch versioned-graph, issue 6): a node version is (repo, id, since); lookups by (repo, id)
// and the head's versions by (repo, until).
CREATE CONSTRAINT directory_version IF NOT EXISTS FOR (n:Directory) REQUIRE (n.repo, n.id, n.since) IS UNIQUE;
CREATE CONSTRAINT file_version IF NOT EXISTS FOR (n:File) REQUIRE (n.repo, n.id, n.since) IS UNIQUE;
CREATE CONSTRAINT class_version IF NOT EXISTS FOR (n:Class) REQUIRE (n.repo, n.id, n.since) IS UNIQUE;
CREATE CONSTRAINT function_version IF NOT EXISTS FOR (n:Function) REQUIRE (n.repo, n.id, n.since) IS UNIQUE;
CREATE INDEX directory_id IF NOT EXISTS FOR (n:Directory) ON (n.repo, n.id);
CREATE INDEX file_id IF NOT EXISTS FOR (n:File) ON (n.repo, n.id);
CREATE INDEX class_id IF NOT EXISTS FOR (n:Class) ON (n.repo, n.id);
CREATE INDEX function_id IF NOT EXISTS FOR (n:Function) ON (n.repo, n.id);
CREATE INDEX directory_until IF NOT EXISTS FOR (n:Directory) ON (n.repo, n.until);
CREATE INDEX file_until IF NOT EXISTS FOR (n:File) ON (n.repo, n.until);
CREATE INDEX class_until IF NOT EXISTS FOR (n:Class) ON (n.repo, n.until);
CREATE INDEX function_until IF NOT EXISTS FOR (n:Function) ON (n.repo, n.until);
