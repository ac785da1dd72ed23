"""Training data and fine-tuning for the embedding model: a commit's message says what was wrong, its diff which
functions that took (`spider models pairs`, `spider models tune`)."""
