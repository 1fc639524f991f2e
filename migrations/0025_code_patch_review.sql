-- Code patches made in a repository workspace (issue 39): the commit the runner worked from and
-- the paths it reports the patch touches (DESIGN 3.4, `artifact.metadata.base_sha` and `files`),
-- and the service's check, before review, that the patch applies at that commit. Rules:
-- docs/delivery.md, "Code patches".

-- The commit a code_patch was made at; delivery branches from it. Null: made without a workspace
-- (delivery then uses the default branch's head).
alter table ai_artifacts add column if not exists base_sha text;
-- The paths the runner reports the patch touches (the payload's own headers are what delivery
-- applies). Null: not reported.
alter table ai_artifacts add column if not exists patch_files text[];

-- The patch check (job ai_workforce.check_patch) of a code_patch: `applies`, `does_not_apply`
-- (with the reason), or `not_checked` (GitHub not configured or not answering; the reason says
-- which). Null: other kinds, or a check still queued.
alter table ai_artifacts add column if not exists patch_check text;
alter table ai_artifacts drop constraint if exists ai_artifacts_patch_check;
alter table ai_artifacts add constraint ai_artifacts_patch_check
  check (patch_check in ('applies', 'does_not_apply', 'not_checked'));
alter table ai_artifacts add column if not exists patch_check_reason text;
-- The commit the check read the files at: base_sha, or the default branch's head when null.
alter table ai_artifacts add column if not exists patch_checked_sha text;
alter table ai_artifacts add column if not exists patch_checked_at timestamptz;
