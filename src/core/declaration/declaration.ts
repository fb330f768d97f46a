/** The declaration document: its digest and signature, and its exact text. Pure. */
import { createHmac } from 'node:crypto';
import { canonicalHash } from '../json/canonicalJson';
import type { Declaration } from './declarationModel';

export const GENERATOR = { name: 'dsh-bridge', version: '0.1.0' };

/** Everything of a declaration except `digest` and `signature`, in the order it is written. */
export type DeclarationBody = Omit<Declaration, 'digest' | 'signature'>;

export function signDigest(digest: string, key: Buffer): string {
  return `hmac-sha256:${createHmac('sha256', key).update(digest, 'utf8').digest('hex')}`;
}

/** The file's exact text: same input, same bytes. */
export function serializeDeclaration(body: DeclarationBody, key: Buffer): string {
  const digest = canonicalHash(body);
  const document = { ...body, digest, signature: signDigest(digest, key) };
  return `${JSON.stringify(document, null, 2)}\n`;
}

