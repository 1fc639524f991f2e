-- Leaving and ownership (issue 28): cancelled challenges and archived AI employees. Rules:
-- docs/domain.md "Leaving and ownership" and docs/workforce.md "Archiving".

-- A challenge cancelled before its start (its entries refunded); it never starts.
alter table community_challenges add column if not exists cancelled_at timestamptz;
alter table community_challenges drop constraint if exists community_challenges_cancelled_check;
alter table community_challenges add constraint community_challenges_cancelled_check
  check (cancelled_at is null or cancelled_at < starts_at);

-- An archived employee is never active (so never scheduled); its history stays.
alter table ai_employees add column if not exists archived_at timestamptz;
alter table ai_employees drop constraint if exists ai_employees_archived_inactive;
alter table ai_employees add constraint ai_employees_archived_inactive
  check (archived_at is null or not active);
