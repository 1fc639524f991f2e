/** The environment of a child service process on the test's own database. */
import { createTestDatabase, TEST_DATABASE_URL } from "./db.ts";

export async function serviceEnv(): Promise<
  { env: Record<string, string>; cleanup(): Promise<void> }
> {
  const dataDir = await Deno.makeTempDir();
  if (!TEST_DATABASE_URL) {
    return { env: { DATA_DIR: dataDir }, cleanup: () => Deno.remove(dataDir, { recursive: true }) };
  }
  const db = await createTestDatabase({ migrate: false });
  const url = db.url;
  await db.sql.end();
  return {
    env: { DATA_DIR: dataDir, DATABASE_URL: url },
    cleanup: async () => {
      await db.close().catch(() => {});
      await Deno.remove(dataDir, { recursive: true });
    },
  };
}
