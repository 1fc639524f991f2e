/** The database's types: the driver's handles and the {@link Database} both modes hand out. */
import type postgres from "postgres";

// deno-lint-ignore ban-types
export type Sql = postgres.Sql<{}>;
export type TransactionSql = postgres.TransactionSql;
/** Either the pool or a transaction: what store functions accept. */
export type Queryable = Sql | TransactionSql;

export type DatabaseMode = "postgres" | "embedded";

export interface Database {
  sql: Sql;
  mode: DatabaseMode;
  /** Connection URL (for embedded mode: the loopback socket). */
  url: string;
  poolSize: number;
  /** True where LISTEN/NOTIFY reaches other connections (real PostgreSQL only). */
  supportsListen: boolean;
  /**
   * A connection to the server itself when `sql` goes through a transaction pooler: what needs a
   * session of its own (LISTEN, migrations) uses it. Absent: `sql` is direct.
   */
  direct?: Sql;
  close(): Promise<void>;
}
