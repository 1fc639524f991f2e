-- Payment records (issue 20): the billing provider sends `price` in USD and
-- `price_in_purchased_currency` in `currency`. `amount` is now the amount in `currency` and
-- `amount_usd` the USD figure; rows written before this stored `price` in `amount`.
alter table payment_records add column if not exists amount_usd numeric(14, 4);
update payment_records set
  amount_usd = amount,
  -- Nested CASE: the cast runs only on a JSON number (AND does not fix an evaluation order).
  amount = case
    when jsonb_typeof(raw_event -> 'event' -> 'price_in_purchased_currency') = 'number' then
      case when abs((raw_event -> 'event' ->> 'price_in_purchased_currency')::numeric) < 1000000000
        then (raw_event -> 'event' ->> 'price_in_purchased_currency')::numeric end
    when currency = 'USD' then amount
  end
where amount_usd is null and amount is not null;
-- Outcomes now also include `other_environment` (a sandbox event on a production backend, or the
-- reverse); transfers and refunds look up a subscriber's records by app user id.
create index if not exists payment_records_app_user_idx on payment_records (app_user_id, occurred_at);
