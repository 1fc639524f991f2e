/**
 * The wire contract between the service and the agent runner, imported by both programs: the
 * run request and result (DESIGN 3.3, 3.4) with their signatures, the model price table both
 * charge by (DESIGN 3.2), and the bounded body reader both read requests with.
 */
export * from "./runs.ts";
export * from "./request-signature.ts";
export * from "./pricing.ts";
export * from "./body.ts";
export * from "./errors.ts";
export * from "./protected-paths.ts";
export {
  hmacSha256Hex,
  SIGNATURE_HEADER,
  type VerificationKeys,
  verificationSecrets,
  verifyHmacSignature,
} from "../hmac.ts";
