-- `aiArtifacts` (the admin console's delivery page): artifacts newest first, filtered by approval
-- status (and delivery status or employee), read and counted through an index.
create index if not exists ai_artifacts_status_created
  on ai_artifacts (approval_status, created_at, public_id);
create index if not exists ai_artifacts_created on ai_artifacts (created_at, public_id);
