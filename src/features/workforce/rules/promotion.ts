/** Autonomy and promotion (spec 3.4; docs/workforce.md defines the figures). */
import type { ArtifactKind } from "../../../platform/contract/mod.ts";
import {
  AUTONOMY_LEVELS,
  type AutonomyLevel,
  LOCKED_SHADOW_ROLE,
  LOW_RISK_KINDS,
} from "./levels.ts";

const DAY_MS = 86_400_000;
const WEEK_MS = 7 * DAY_MS;
/** Human rejections within this window before now stop a promotion from shadow. */
export const RECENT_REJECTION_WINDOW_MS = 14 * DAY_MS;

export interface PromotionStats {
  /** approved / (approved + rejected + auto_rejected) over human and filter decisions; null = none. */
  approvalRate: number | null;
  weeksActive: number;
  /** Human rejections in the last 14 days. */
  recentRejections: number;
}

/** The figures of an employee without history. */
export const ZERO_STATS: PromotionStats = {
  approvalRate: null,
  weeksActive: 0,
  recentRejections: 0,
};

/** The decision counts behind {@link PromotionStats}, as the store reads them. */
export interface PromotionCounts {
  approved: number;
  rejected: number;
  autoRejected: number;
  recentRejections: number;
  firstRunAt: Date | null;
}

export interface PromotionCheck {
  from: AutonomyLevel;
  to: AutonomyLevel;
  role: string;
  stats: PromotionStats;
  confirmPromotion: boolean;
}

/** Approval rate as a fraction; null when nothing was decided. */
export function approvalRate(
  approved: number,
  rejected: number,
  autoRejected: number,
): number | null {
  const total = approved + rejected + autoRejected;
  return total === 0 ? null : approved / total;
}

/** Whole weeks since `firstRunAt` (0 without runs). */
export function weeksActive(firstRunAt: Date | null, now: Date): number {
  if (!firstRunAt) return 0;
  return Math.max(0, Math.floor((now.getTime() - firstRunAt.getTime()) / WEEK_MS));
}

/** The promotion figures at `now` of an employee's decision counts. */
export function promotionStatsOf(counts: PromotionCounts, now: Date): PromotionStats {
  return {
    approvalRate: approvalRate(counts.approved, counts.rejected, counts.autoRejected),
    weeksActive: weeksActive(counts.firstRunAt, now),
    recentRejections: counts.recentRejections,
  };
}

/** Since when a rejection counts as recent at `now`. */
export const recentRejectionsSince = (now: Date) =>
  new Date(now.getTime() - RECENT_REJECTION_WINDOW_MS);

const rank = (level: AutonomyLevel) => AUTONOMY_LEVELS.indexOf(level);

/** The level a promotion would go to next, or null at the top (or for the locked role). */
export function nextLevel(level: AutonomyLevel, role: string): AutonomyLevel | null {
  if (role === LOCKED_SHADOW_ROLE) return null;
  return AUTONOMY_LEVELS[rank(level) + 1] ?? null;
}

/** What stops a promotion from `from` to the next level; empty = the criteria are met. */
export function missingCriteria(
  from: AutonomyLevel,
  role: string,
  stats: PromotionStats,
): string[] {
  if (role === LOCKED_SHADOW_ROLE) return [`the ${LOCKED_SHADOW_ROLE} role is locked to shadow`];
  const rate = stats.approvalRate;
  const pct = rate === null ? "none" : `${(rate * 100).toFixed(1)}%`;
  const missing: string[] = [];
  if (from === "shadow") {
    if (rate === null || rate <= 0.8) missing.push(`approval rate must be above 80% (is ${pct})`);
    if (stats.weeksActive < 4) {
      missing.push(`weeks active must be at least 4 (is ${stats.weeksActive})`);
    }
    if (stats.recentRejections > 0) {
      missing.push(
        `no rejections allowed in the last 2 weeks (has ${stats.recentRejections})`,
      );
    }
  } else if (from === "semi_autonomous") {
    if (rate === null || rate <= 0.95) missing.push(`approval rate must be above 95% (is ${pct})`);
    if (stats.weeksActive < 8) {
      missing.push(`weeks active must be at least 8 (is ${stats.weeksActive})`);
    }
  } else {
    missing.push("autonomous is the highest level");
  }
  return missing;
}

/** `promotionCriteria` of an employee at `level` in `role` with `stats` (null: no figures). */
export function promotionCriteria(
  level: AutonomyLevel,
  role: string,
  stats: PromotionStats | null,
) {
  const figures = stats ?? ZERO_STATS;
  const next = nextLevel(level, role);
  const missing = missingCriteria(level, role, figures);
  return {
    ...figures,
    currentLevel: level,
    nextLevel: next,
    promotable: next !== null && missing.length === 0,
    missing,
  };
}

/**
 * The level an `updateAiEmployee` asks for: `autonomyLevel` when given; `confirmPromotion: true`
 * alone asks a semi-autonomous employee's promotion to `autonomous` (spec 3.4) and is an error at
 * any other level; otherwise the current level.
 */
export function requestedLevel(
  current: AutonomyLevel,
  requested: AutonomyLevel | undefined,
  confirmPromotion: boolean,
): { to: AutonomyLevel } | { error: string } {
  if (requested !== undefined) return { to: requested };
  if (!confirmPromotion) return { to: current };
  if (current === "semi_autonomous") return { to: "autonomous" };
  return {
    error: `confirmPromotion confirms semi_autonomous -> autonomous; this employee is ${current}`,
  };
}

/**
 * The model validation `promotion_requirements_met`: null when the change from `from` to `to` is
 * allowed, else the reason. No change is allowed; a demotion moves down one level (spec 3.4:
 * autonomous -> semi_autonomous -> shadow); the locked role can only be `shadow`; a promotion
 * moves up one level and needs its criteria (and for `autonomous` the operator's confirmation).
 */
export function promotionRequirementsMet(check: PromotionCheck): string | null {
  const { from, to, role } = check;
  if (role === LOCKED_SHADOW_ROLE && to !== "shadow") {
    return `promotion_requirements_met: the ${LOCKED_SHADOW_ROLE} role is locked to shadow`;
  }
  if (rank(to) === rank(from)) return null;
  if (rank(to) < rank(from) - 1) {
    return `autonomy_demotion: demote one level at a time (${from} -> ${
      AUTONOMY_LEVELS[rank(from) - 1]
    })`;
  }
  if (rank(to) < rank(from)) return null;
  if (rank(to) - rank(from) > 1) {
    return `promotion_requirements_met: promote one level at a time (${from} -> ${
      AUTONOMY_LEVELS[rank(from) + 1]
    })`;
  }
  const missing = missingCriteria(from, role, check.stats);
  if (to === "autonomous" && !check.confirmPromotion) {
    missing.push("confirmPromotion: true is required to become autonomous");
  }
  return missing.length ? `promotion_requirements_met: ${missing.join("; ")}` : null;
}

/**
 * Spec 3.4: whether an artifact of `kind` skips review at `level`. One with a figure that none of
 * its run's sources hold (`unsupportedFigures`, the grounding check) always waits for a person.
 */
export function autoApproves(
  level: AutonomyLevel,
  kind: ArtifactKind,
  unsupportedFigures: readonly string[] = [],
): boolean {
  if (unsupportedFigures.length > 0) return false;
  if (level === "autonomous") return true;
  if (level === "semi_autonomous") return LOW_RISK_KINDS.includes(kind);
  return false;
}
