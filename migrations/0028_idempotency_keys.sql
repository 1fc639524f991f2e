-- Safe retries of creating mutations (issue 43, docs/graphql.md "Retrying mutations"): a
-- client's idempotency key, scoped by the user and the mutation, with a fingerprint of the
-- request's arguments and the answer the first request got. The row is written in the same
-- transaction as what the mutation creates, first, so a concurrent request with the same key
-- waits on the primary key and then answers the stored answer. Rows older than a day are
-- pruned (schedule privacy.prune_idempotency_keys) and a user's are erased with the account.
create table if not exists idempotency_keys (
  user_id bigint not null references users (id) on delete cascade,
  -- The mutation's name (addGoal, createCommunityPost, ...).
  mutation text not null,
  -- The client's key: 1 to 64 visible ASCII characters (checked by the service).
  key text not null,
  -- Hex SHA-256 of the request's arguments without the key, in a canonical form.
  fingerprint text not null,
  -- The first request's answer (its payload, dates tagged); null only inside the transaction
  -- that claims the key.
  response jsonb,
  created_at timestamptz not null,
  primary key (user_id, mutation, key),
  constraint idempotency_keys_key_length check (char_length(key) between 1 and 64)
);
create index if not exists idempotency_keys_created_at on idempotency_keys (created_at);
