// The versioned graph (see README, "Snapshots are versions"): a node version is unique by (repo, id, since);
// queries find a snapshot's versions by (repo, id) or scan a repository's versions by (repo, since | until).
// Run by `spider index` before writing; safe to run again (IF NOT EXISTS).
CREATE CONSTRAINT directory_version IF NOT EXISTS FOR (n:Directory) REQUIRE (n.repo, n.id, n.since) IS UNIQUE;
CREATE CONSTRAINT file_version IF NOT EXISTS FOR (n:File) REQUIRE (n.repo, n.id, n.since) IS UNIQUE;
CREATE CONSTRAINT class_version IF NOT EXISTS FOR (n:Class) REQUIRE (n.repo, n.id, n.since) IS UNIQUE;
CREATE CONSTRAINT function_version IF NOT EXISTS FOR (n:Function) REQUIRE (n.repo, n.id, n.since) IS UNIQUE;
CREATE CONSTRAINT snapshot_key IF NOT EXISTS FOR (s:Snapshot) REQUIRE (s.repo, s.snapshot) IS UNIQUE;
CREATE CONSTRAINT snapshot_seq IF NOT EXISTS FOR (s:Snapshot) REQUIRE (s.repo, s.seq) IS UNIQUE;
CREATE CONSTRAINT repository_key IF NOT EXISTS FOR (r:Repository) REQUIRE r.repo IS UNIQUE;
CREATE CONSTRAINT index_job_key IF NOT EXISTS FOR (j:IndexJob) REQUIRE j.id IS UNIQUE;
CREATE CONSTRAINT index_job_active IF NOT EXISTS FOR (j:IndexJob) REQUIRE j.active IS UNIQUE;
CREATE INDEX directory_id IF NOT EXISTS FOR (n:Directory) ON (n.repo, n.id);
CREATE INDEX file_id IF NOT EXISTS FOR (n:File) ON (n.repo, n.id);
CREATE INDEX class_id IF NOT EXISTS FOR (n:Class) ON (n.repo, n.id);
CREATE INDEX function_id IF NOT EXISTS FOR (n:Function) ON (n.repo, n.id);
CREATE INDEX directory_since IF NOT EXISTS FOR (n:Directory) ON (n.repo, n.since);
CREATE INDEX file_since IF NOT EXISTS FOR (n:File) ON (n.repo, n.since);
CREATE INDEX class_since IF NOT EXISTS FOR (n:Class) ON (n.repo, n.since);
CREATE INDEX function_since IF NOT EXISTS FOR (n:Function) ON (n.repo, n.since);
CREATE INDEX directory_until IF NOT EXISTS FOR (n:Directory) ON (n.repo, n.until);
CREATE INDEX file_until IF NOT EXISTS FOR (n:File) ON (n.repo, n.until);
CREATE INDEX class_until IF NOT EXISTS FOR (n:Class) ON (n.repo, n.until);
CREATE INDEX function_until IF NOT EXISTS FOR (n:Function) ON (n.repo, n.until);
CREATE INDEX function_name IF NOT EXISTS FOR (n:Function) ON (n.name);
// Graphs written before versioning (one copy per snapshot, keyed by repo, snapshot, id) keep their nodes until
// `spider snapshots delete` removes them; their keys are no longer constrained.
DROP CONSTRAINT directory_key IF EXISTS;
DROP CONSTRAINT file_key IF EXISTS;
DROP CONSTRAINT class_key IF EXISTS;
DROP CONSTRAINT function_key IF EXISTS;
DROP INDEX directory_snapshot IF EXISTS;
DROP INDEX file_snapshot IF EXISTS;
DROP INDEX class_snapshot IF EXISTS;
DROP INDEX function_snapshot IF EXISTS;
