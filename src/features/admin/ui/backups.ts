/** The Backups page: the files in BACKUP_DIR with size and time, the settings, "Back up now". */
import { useState } from "preact/hooks";
import { gql, type UserError } from "./api.ts";
import { useQuery } from "./query.ts";
import { FieldErrors, html, time } from "./html.ts";
import { byteSize, counted } from "./rules.ts";
import { ConfirmButton } from "./confirm.ts";

interface BackupRow {
  name: string;
  sizeBytes: number;
  createdAt: string;
}

interface Backups {
  files: BackupRow[];
  directory: string;
  intervalHours: number;
  keep: number;
}

export function BackupsPage() {
  const { data, error, reload } = useQuery<{ backups: Backups }>(
    `{ backups { files { name sizeBytes createdAt } directory intervalHours keep } }`,
  );
  const [errors, setErrors] = useState<UserError[]>([]);
  const [notice, setNotice] = useState("");
  const backUp = async () => {
    setNotice("Backing up…");
    try {
      const res = await gql(
        `mutation { createBackup { backup { name sizeBytes } errors { code message field } } }`,
      );
      const errs = res.createBackup.errors as UserError[];
      setErrors(errs);
      await reload();
      const made = res.createBackup.backup as BackupRow | null;
      setNotice(made ? `Backed up: ${made.name} (${byteSize(made.sizeBytes)}).` : "");
    } catch (err) {
      setNotice(`The backup failed: ${(err as Error).message}`);
    }
  };
  const b = data?.backups;
  return html`<section aria-labelledby="backups-title">
    <h1 id="backups-title">Backups</h1>
    ${
    b && html`
      <p
        class="lead">${b.intervalHours
          ? `A backup every ${b.intervalHours} h`
          : "No scheduled backups (BACKUP_INTERVAL_HOURS=0)"}; the newest ${b
          .keep} are kept in <code>${b
          .directory}</code>.${" Restore one with "}<code>main.ts restore FILE</code> (docs/deployment.md).</p>
    `
  }
    <${ConfirmButton} label="Back up now…" confirm="Back up now" onConfirm=${backUp}
      question=${`Back up now?${
    b ? ` Only the newest ${b.keep} are kept: older ones are deleted.` : ""
  }`} />
    <div role="status" class="notice">${notice}</div>
    <${FieldErrors} errors=${errors} field=${null} />
    ${error && html`<p class="failure" role="alert">${error}</p>`}
    ${
    !b ? html`<p>Loading…</p>` : !b.files.length ? html`<p class="empty">No backup yet.</p>` : html`
      <table>
        <caption>${counted(b.files.length, "backup")}, newest first</caption>
        <thead>
          <tr>
            <th scope="col">File</th>
            <th scope="col">Size</th>
            <th scope="col">Made</th>
          </tr>
        </thead>
        <tbody>${b.files.map((f) =>
          html`
            <tr key=${f.name} data-backup=${f.name}>
              <td><code>${f.name}</code></td>
              <td>${byteSize(f.sizeBytes)}</td>
              <td>${time(f.createdAt)}</td>
            </tr>
          `
        )}</tbody>
      </table>
    `
  }
  </section>`;
}
