-- Where a resumable background job stopped (the lifecycle worker's
-- bucket and key marker), so that the node that takes over its lease
-- resumes there.
CREATE TABLE job_cursors (
  job      TEXT PRIMARY KEY,
  position TEXT NOT NULL
);
