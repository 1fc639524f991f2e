-- Foundation: a key-value table for service-wide settings (feature flags, instance notes).
create table if not exists service_settings (
  key text primary key,
  value jsonb not null,
  updated_at timestamptz not null default now()
);
