/**
 * The AI services of the coaching feature that other features receive through its API: feature
 * flags (`coaching`, `moderation`, `batch`) and the moderation hook, over the LLM client (null
 * when `LLM_BASE_URL` is unset).
 *
 * @example
 * ```ts
 * // in a feature that accepts user posts (deps.moderation: the coaching feature's moderation)
 * const verdict = await deps.moderation.check(body, { category: "feedback_post", userId });
 * if (!verdict.allowed) return { post: null, errors: [userError("content_rejected", verdict.reason ?? "not allowed", "body")] };
 * // in a batch job
 * if (!(await deps.ai.flags.isEnabled("batch"))) return;
 * ```
 */
import type { Config } from "../../config.ts";
import type { Database } from "../../platform/db.ts";
import type { Clock } from "../../platform/clock.ts";
import { errorFields, type Logger } from "../../platform/log.ts";
import { type LlmClient, LlmError } from "../../platform/llm.ts";
import { codedError } from "../../graphql/errors.ts";
import {
  AI_FLAGS,
  COACHING_MODEL,
  isKnownFlag,
  moderationAnswer,
  moderationMessages,
} from "./rules.ts";
import * as store from "./store.ts";

export interface FlagState {
  name: string;
  /** What calls see: the override or the env default, and false without an LLM. */
  enabled: boolean;
  /** The setting before the LLM check. */
  configured: boolean;
  source: "database" | "environment";
}

export interface AiFlags {
  /** Whether `name` is on. An unknown name is off and logs an error (fails closed). */
  isEnabled(name: string, log?: Logger): Promise<boolean>;
  /**
   * Throws `AI_DISABLED` (after a warn log with the flag, category and context) unless `name`
   * is on.
   */
  require(
    name: string,
    category: string,
    context: Record<string, unknown>,
    log?: Logger,
  ): Promise<void>;
  list(): Promise<FlagState[]>;
  /** Persists an override (admin); refuses unknown names. */
  set(name: string, enabled: boolean, byUserId: string | null): Promise<FlagState | null>;
}

export interface ModerationContext {
  /** What is checked, e.g. `community_post`, `feedback_post`; logged and recorded. */
  category: string;
  /** The author's internal user id, for the call ledger (never sent to the model). */
  userId?: string | null;
  [key: string]: unknown;
}

export interface ModerationVerdict {
  allowed: boolean;
  /** False when no model looked at it (no LLM configured, or the model failed: fail open). */
  checked: boolean;
  reason: string | null;
  categories: string[];
}

export interface Moderation {
  check(text: string, context: ModerationContext, log?: Logger): Promise<ModerationVerdict>;
}

export interface Ai {
  llm: LlmClient | null;
  flags: AiFlags;
}

export interface AiDeps {
  config: Pick<Config, "aiFlags">;
  db: Database;
  log: Logger;
  clock: Clock;
  /** The LLM proxy's client; null when `LLM_BASE_URL` is unset (AI features are off). */
  llm: LlmClient | null;
}

export function createAiFlags(deps: AiDeps, llmConfigured: boolean): AiFlags {
  const sql = deps.db.sql;
  const envOn = new Set(deps.config.aiFlags);
  for (const name of envOn) {
    if (!isKnownFlag(name)) {
      deps.log.error("unknown ai flag in AI_FLAGS", { flag: name, known: AI_FLAGS });
    }
  }
  async function state(name: string): Promise<FlagState> {
    const override = await store.flagOverride(sql, name);
    const configured = override ?? envOn.has(name);
    return {
      name,
      configured,
      enabled: configured && llmConfigured,
      source: override === null ? "environment" : "database",
    };
  }
  async function isEnabled(name: string, log = deps.log): Promise<boolean> {
    if (!isKnownFlag(name)) {
      log.error("unknown ai flag", { flag: name, known: AI_FLAGS });
      return false;
    }
    if (!llmConfigured) return false;
    return (await state(name)).enabled;
  }
  return {
    isEnabled,
    async require(name, category, context, log = deps.log) {
      if (await isEnabled(name, log)) return;
      log.warn("ai feature disabled", {
        flag: name,
        category,
        context,
        reason: !isKnownFlag(name) ? "unknown_flag" : llmConfigured ? "flag_off" : "no_llm",
      });
      throw codedError("AI_DISABLED", `the AI feature ${category} is not enabled`, { flag: name });
    },
    list: () => Promise.all(AI_FLAGS.map(state)),
    async set(name, enabled, byUserId) {
      if (!isKnownFlag(name)) {
        deps.log.error("unknown ai flag", { flag: name, known: AI_FLAGS });
        return null;
      }
      await store.setFlagOverride(sql, name, enabled, byUserId, deps.clock.now());
      deps.log.info("ai flag set", { flag: name, enabled });
      return await state(name);
    },
  };
}

export function createModeration(deps: AiDeps, ai: Ai): Moderation {
  const skipped = (): ModerationVerdict => ({
    allowed: true,
    checked: false,
    reason: null,
    categories: [],
  });
  return {
    async check(text, context, log = deps.log) {
      const { userId, ...logged } = context;
      if (!ai.llm) {
        // Without an LLM there is no moderation to run: posting is not an AI feature, so the
        // one-binary default keeps working (docs/ai-coaching.md).
        log.warn("moderation skipped: no LLM configured, content accepted", {
          flag: "moderation",
          category: context.category,
          context: logged,
        });
        return skipped();
      }
      // Spec 7: with the flag off the mutation answers AI_DISABLED (after a warn log).
      await ai.flags.require("moderation", context.category, logged, log);
      try {
        const { value, usage } = await ai.llm.chatJson({
          model: COACHING_MODEL,
          messages: moderationMessages(text, context.category),
          temperature: 0,
        }, moderationAnswer);
        await store.recordAiCall(deps.db.sql, {
          userId: userId ?? null,
          feature: "moderation",
          model: COACHING_MODEL,
          outcome: "ok",
          usage,
        });
        if (!value.allowed) log.info("content rejected by moderation", { ...logged, ...value });
        return {
          allowed: value.allowed,
          checked: true,
          reason: value.allowed ? null : value.reason ?? "the content breaks the community rules",
          categories: value.categories,
        };
      } catch (err) {
        if (!(err instanceof LlmError)) throw err;
        // Fail open: an outage of the model must not stop people from posting.
        log.error("moderation check failed, content accepted", {
          ...errorFields(err),
          kind: err.kind,
          category: context.category,
        });
        await store.recordAiCall(deps.db.sql, {
          userId: userId ?? null,
          feature: "moderation",
          model: COACHING_MODEL,
          outcome: err.kind,
          usage: err.usage,
        });
        return skipped();
      }
    },
  };
}

/** Builds the AI services once per app. */
export function createAi(deps: AiDeps): Ai & { moderation: Moderation } {
  const ai: Ai = { llm: deps.llm, flags: createAiFlags(deps, deps.llm !== null) };
  return { ...ai, moderation: createModeration(deps, ai) };
}
