/**
 * GraphQL-ESLint's schema rules on the schema the service builds (docs/graphql.md, "Schema lint"):
 * the plugin's `flat/schema-recommended` set, with `require-description` asking for every type,
 * field, argument and enum value, and the few rules that contradict the spec's contract adjusted,
 * each with its reason. `deno task lint:schema` prints the problems (exit 1 when there are any);
 * tests/graphql/schema_lint_test.ts fails on any.
 */
import graphqlPlugin from "@graphql-eslint/eslint-plugin";
import { Linter } from "eslint";
import { type ASTNode, type DefinitionNode, parse } from "graphql";
import { baseTypeDefs } from "../src/graphql/module.ts";
import { currentFeatureModules, currentSchema } from "./schema.ts";

const recommended = graphqlPlugin.configs["flat/schema-recommended"].rules as Linter.RulesRecord;
const [, recommendedNaming] = recommended["@graphql-eslint/naming-convention"] as [
  string,
  Record<string, unknown>,
];

/** The type names ending in `Type` that stay: the spec's names (spec 4.4) and ones released in 1.0. */
const TYPE_SUFFIX_KEPT = [
  "AiArtifactType",
  "AiEmployeeMemoryType",
  "AiEmployeeType",
  "AiRunType",
  "ApprovalRateDataType",
  "PromotionCriteriaType",
  "AiRunLogEntryType",
  "AiEmployeeToolType",
  "AiPatchCheckType",
  "AiProtectedPathType",
];

/**
 * Object types that are values without an identity of their own (a summary, a setting, an entry of
 * a list computed on read), so they have no `id`; a new object type either has `id: ID!` or is
 * named here.
 */
const VALUE_TYPES = [
  "AccountDeletion",
  "Advice",
  "AiAvailability",
  "AiEmployeeMemoryType",
  "AiEmployeeToolType",
  "AiFeatureAvailability",
  "AiFlag",
  "AiPatchCheckType",
  "AiProtectedPathType",
  "AiRunLogEntryType",
  "ApprovalRateDataType",
  "Backup",
  "Backups",
  "BadgeEarnedActivity",
  "BlockedUser",
  "ChallengeLeaderboard",
  "ChallengeParticipation",
  "CheckInActivity",
  "CommunityPostActivity",
  "DeadJobKind",
  "GoalCompletedActivity",
  "GoalEventActivity",
  "GoalProgressData",
  "Insight",
  "JobQueue",
  "JobSchedule",
  "JobsOverview",
  "LeaderboardEntry",
  "Milestone",
  "NotificationArg",
  "NotificationPreference",
  "Pace",
  "PageInfo",
  "ProgressBucket",
  "PromotionCriteriaType",
  "PushConfiguration",
  "RetryingJobKind",
  "TeamActivity",
  "TeamHome",
  "TeamInvitePreview",
  "TeamLeaderboardEntry",
  "TeamLeaderboardOptOutStat",
  "TeamMember",
  "TeamSettings",
  "TeamStanding",
  "UserError",
];

/** The rules and their options; every change to the recommended set says why. */
export const SCHEMA_LINT_RULES: Linter.RulesRecord = {
  ...recommended,
  // Issue 43: every type, field, argument and enum value (recommended: types and root fields).
  "@graphql-eslint/require-description": ["error", {
    types: true,
    rootField: true,
    DirectiveDefinition: true,
    FieldDefinition: true,
    InputValueDefinition: true,
    EnumValueDefinition: true,
  }],
  "@graphql-eslint/naming-convention": ["error", {
    ...recommendedNaming,
    // Enum values are lower snake_case, the values the spec and the database use (docs/graphql.md).
    EnumValueDefinition: "snake_case",
    // The spec names six return types `...Type` (spec 4.4); four more were released so in 1.0.
    "ObjectTypeDefinition,ObjectTypeExtension": {
      forbiddenPrefixes: ["Type"],
      forbiddenSuffixes: ["Type"],
      ignorePattern: `^(${TYPE_SUFFIX_KEPT.join("|")})$`,
    },
  }],
  // Payloads, connections, edges and the spec's value objects have no identity of their own.
  "@graphql-eslint/strict-id-in-types": ["error", {
    acceptedIdNames: ["id"],
    acceptedIdTypes: ["ID"],
    exceptions: { suffixes: ["Payload", "Connection", "Edge"], types: VALUE_TYPES },
  }],
  // A plain prefix test: it flags the spec's `User.username` and `Report.reporter`, `reportedUser`,
  // `reportedBody`, which do not repeat their type's name, and it takes no exceptions.
  "@graphql-eslint/no-typename-prefix": "off",
};

/** One problem, at a schema coordinate (`Type`, `Type.field`, `Type.field(arg:)`, `Enum.value`). */
export interface SchemaProblem {
  rule: string;
  coordinate: string;
  message: string;
  line: number;
  /** The feature whose SDL defines the coordinate (`graphql` for the shared types). */
  feature: string;
}

/** Runs the rules on `sdl`; `owners` maps a coordinate to the feature that defines it. */
export function lintSchemaSdl(
  sdl: string,
  owners: ReadonlyMap<string, string> = new Map(),
): SchemaProblem[] {
  const linter = new Linter({ configType: "flat" });
  const messages = linter.verify(sdl, [{
    files: ["**/*.graphql"],
    languageOptions: { parser: graphqlPlugin.parser, parserOptions: { schemaSdl: sdl } },
    plugins: {
      "@graphql-eslint": graphqlPlugin as unknown as NonNullable<Linter.Config["plugins"]>[string],
    },
    rules: SCHEMA_LINT_RULES,
  }], "schema.graphql");
  const locate = coordinates(sdl);
  return messages.map((m) => {
    const coordinate = locate(m.line, m.column);
    return {
      rule: (m.ruleId ?? "parse").replace(/^@graphql-eslint\//, ""),
      coordinate,
      message: m.message,
      line: m.line,
      feature: owners.get(coordinate) ?? owners.get(coordinate.split(".")[0]) ?? "?",
    };
  });
}

/** The schema the code builds, linted, each problem with the feature that defines it. */
export function lintCurrentSchema(): SchemaProblem[] {
  return lintSchemaSdl(currentSchema(), coordinateOwners());
}

/** The schema coordinate of the innermost definition at a line and column (1-based) of `sdl`. */
function coordinates(sdl: string): (line: number, column: number) => string {
  const document = parse(sdl);
  const lineStarts = [0];
  for (let i = 0; i < sdl.length; i++) if (sdl[i] === "\n") lineStarts.push(i + 1);
  const within = (node: ASTNode, at: number) => node.loc!.start <= at && at < node.loc!.end;
  return (line, column) => {
    const at = (lineStarts[line - 1] ?? 0) + column - 1;
    const definition = document.definitions.find((d) => within(d, at));
    if (!definition || !("name" in definition) || !definition.name) return "(schema)";
    const type = definition.name.value;
    for (const value of valuesOf(definition)) {
      if (within(value, at)) return `${type}.${value.name.value}`;
    }
    for (const field of fieldsOf(definition)) {
      if (!within(field, at)) continue;
      const arg = ("arguments" in field ? field.arguments ?? [] : []).find((a) => within(a, at));
      return `${type}.${field.name.value}${arg ? `(${arg.name.value}:)` : ""}`;
    }
    return type;
  };
}

type Named = ASTNode & { name: { value: string } };

function fieldsOf(
  definition: DefinitionNode,
): readonly (Named & { arguments?: readonly Named[] })[] {
  return "fields" in definition ? definition.fields ?? [] : [];
}

function valuesOf(definition: DefinitionNode): readonly Named[] {
  return "values" in definition ? definition.values ?? [] : [];
}

/** Which feature's SDL defines each coordinate (a type, a field, an argument, an enum value). */
export function coordinateOwners(): Map<string, string> {
  const owners = new Map<string, string>();
  const sources: [string, string][] = [
    ["graphql", baseTypeDefs],
    ...currentFeatureModules().map((
      [feature, module],
    ): [string, string] => [feature, module.typeDefs]),
  ];
  for (const [feature, typeDefs] of sources) {
    for (const definition of parse(typeDefs, { noLocation: true }).definitions) {
      if (!("name" in definition) || !definition.name) continue;
      const type = definition.name.value;
      if (!definition.kind.endsWith("Extension")) owners.set(type, feature);
      for (const field of fieldsOf(definition)) {
        owners.set(`${type}.${field.name.value}`, feature);
        for (const arg of field.arguments ?? []) {
          owners.set(`${type}.${field.name.value}(${arg.name.value}:)`, feature);
        }
      }
      for (const value of valuesOf(definition)) owners.set(`${type}.${value.name.value}`, feature);
    }
  }
  return owners;
}

/** `N problems`, by rule. */
export function problemCounts(problems: readonly SchemaProblem[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const p of problems) counts[p.rule] = (counts[p.rule] ?? 0) + 1;
  return counts;
}

if (import.meta.main) {
  const problems = lintCurrentSchema();
  for (const p of problems) {
    console.log(
      `schema.graphql:${p.line}  ${p.rule}  ${p.coordinate} (${p.feature})  ${p.message}`,
    );
  }
  const byFeature: Record<string, number> = {};
  for (const p of problems) byFeature[p.feature] = (byFeature[p.feature] ?? 0) + 1;
  console.log(
    problems.length
      ? `${problems.length} problems; by rule ${JSON.stringify(problemCounts(problems))}; ` +
        `by feature ${JSON.stringify(byFeature)}`
      : "no problems",
  );
  Deno.exit(problems.length ? 1 : 0);
}
