/**
 * Values written in the shape of a key that stand for one without being one: the example keys
 * vendors print in their documentation (AWS's `AKIAIOSFODNN7EXAMPLE`), filler (`sk_test_xxxxxx…`,
 * `000000`, `******`) and instructions (`your-api-key`, `REPLACE_ME`). A key drawn at random
 * holds no English word and no run of six equal characters (one in about 2^24 per position for
 * base64, 2^20 for hex), so these tests cost no real key.
 */
export function isStandIn(value: string): boolean {
  return (
    /(.)\1{5}/.test(value) ||
    /example|placeholder|dummy|changeme|change[_-]me|replace[_-]?(?:me|with|this)|redacted/i.test(value) ||
    /(?:^|[^a-z])(?:your|my)[_-]?[a-z_-]*(?:key|token|secret|password|pass)/i.test(value)
  );
}
