/** Spec 2.4 artifact kinds; a module without dependencies, so the console's bundle can share it. */
export const ARTIFACT_KINDS = [
  "code_patch",
  "email_template",
  "slack_message",
  "report",
  "draft_post",
  "recommendation",
  "other",
] as const;
export type ArtifactKind = typeof ARTIFACT_KINDS[number];
