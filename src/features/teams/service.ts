/**
 * The teams use cases, each `(deps, actor, input) => Promise<payload>`: the only teams code that
 * opens transactions and tells members (notifications). They decide which refusal to answer,
 * as values of the rules' closed set; the store's guarded statements say only what they did.
 * The schema adapts GraphQL to these functions. They live in `use-cases/`:
 *
 * - `teams.ts`: `createTeam`, `updateTeam`, `transferTeamOwnership`, `deleteTeam`,
 *   `setLeaderboardVisibility`, and `myTeamId`, `teamHome`, `teamSettings`;
 * - `invites.ts`: `createTeamInvite`, `revokeTeamInvite`, `acceptTeamInvite`,
 *   `teamInvitePreview`, the usable invites;
 * - `members.ts`: `promoteTeamMember`, `removeTeamMember`, the members page;
 * - `sub-communities.ts`: creating, archiving, the default, joining, leaving, adding, removing;
 * - `reads.ts`: rows by id, activity, leaderboards, opt-out stats;
 * - `shared.ts`: the deps, the actor, the lookups inside the actor's team.
 */
export * from "./use-cases/shared.ts";
export * from "./use-cases/teams.ts";
export * from "./use-cases/invites.ts";
export * from "./use-cases/members.ts";
export * from "./use-cases/sub-communities.ts";
export * from "./use-cases/reads.ts";
export type { TeamsError, TeamsErrorCode } from "./rules.ts";
export type {
  ActivityRow,
  InviteRow,
  LeaderboardRow,
  MemberRow,
  SubCommunityRow,
  TeamRow,
} from "./store.ts";
