import { type Candidate, matchCandidates, Rank } from '../spans.ts';
import { isStandIn } from './stand-ins.ts';

/**
 * Vendor credential formats, each from the vendor's documentation of its token prefixes
 * (the prefixes exist so that scanners such as this one can find them).
 */
const formats: RegExp[] = [
  /\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b/g, // AWS access key ids
  /\bgh[pousr]_[A-Za-z0-9]{36,255}\b/g, // GitHub classic tokens
  /\bgithub_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}\b/g, // GitHub fine-grained tokens
  /\bglpat-[A-Za-z0-9_-]{20,}/g, // GitLab personal access tokens
  /\bxox[abposr]-(?:\d+-)+[A-Za-z0-9]{10,64}\b/g, // Slack bot, user and app tokens
  /\bxapp-\d-[A-Z0-9]+-\d+-[a-f0-9]{32,}\b/g, // Slack app-level tokens
  /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{20,247}\b/g, // Stripe secret and restricted keys
  /\bwhsec_[A-Za-z0-9]{24,}\b/g, // Stripe webhook signing secrets
  /\bAIza[0-9A-Za-z_-]{35}(?![\w-])/g, // Google API keys
  /\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}(?![\w-])/g, // OpenAI project and service keys
  /\bsk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}\b/g, // OpenAI legacy keys (marked)
  /\bsk-[A-Za-z0-9]{48}\b/g, // OpenAI legacy keys
  /\bsk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_-]{80,}(?![\w-])/g, // Anthropic keys
  /\bSG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}(?![\w-])/g, // SendGrid keys
  /\bnpm_[A-Za-z0-9]{36}\b/g, // npm tokens
  /\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}(?![\w-])/g, // PyPI upload tokens
  /\bhf_[A-Za-z0-9]{34,}\b/g, // Hugging Face tokens
  /\bdop_v1_[a-f0-9]{64}\b/g, // DigitalOcean tokens
  /\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b/g, // Shopify tokens
  /\bSK[0-9a-fA-F]{32}\b/g, // Twilio API keys
];

export function findSecretFormats(text: string): Candidate[] {
  // A prefix says which vendor; the rest must still be a key, not documentation's filler.
  return formats
    .flatMap((format) => matchCandidates(text, format, 'SECRET', Rank.format))
    .filter((c) => !isStandIn(text.slice(c.start, c.end)));
}
