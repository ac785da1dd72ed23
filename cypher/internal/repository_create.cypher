// The node a repository's writers lock (repository_lock), created once.
MERGE (:Repository {repo: $repo})
