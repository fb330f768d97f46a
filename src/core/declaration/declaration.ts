/** The declaration document: its body from an analysis, its digest and signature, its exact text. Pure. */
import { createHmac } from 'node:crypto';
import * as path from 'node:path';
import type { Analysis } from '../mcp/analyze';
import { canonicalHash } from '../json/canonicalJson';
import { DECLARATION_SCHEMA_REF, DECLARATION_VERSION, type Declaration, type DeclarationSections } from './declarationModel';

export const GENERATOR = { name: 'dsh-bridge', version: '0.1.0' };

/** Everything of a declaration except `digest` and `signature`, in the order it is written. */
export type DeclarationBody = Omit<Declaration, 'digest' | 'signature'>;

export function buildDeclarationBody(analysis: Analysis, folder: string, sections: DeclarationSections = {}): DeclarationBody {
  return {
    $schema: DECLARATION_SCHEMA_REF,
    version: DECLARATION_VERSION,
    generator: GENERATOR,
    folder: path.resolve(folder),
    source: { path: analysis.sourcePath, sha256: analysis.sourceSha256 },
    ...(analysis.sources?.length ? { sources: analysis.sources } : {}),
    ...(analysis.mcpAccess && analysis.mcpAccess !== 'all' ? { mcpAccess: analysis.mcpAccess } : {}),
    inputs: analysis.inputs,
    servers: analysis.servers,
    rejected: analysis.rejected,
    ...sections,
  };
}

export function signDigest(digest: string, key: Buffer): string {
  return `hmac-sha256:${createHmac('sha256', key).update(digest, 'utf8').digest('hex')}`;
}

/** The file's exact text: same input, same bytes. */
export function serializeDeclaration(body: DeclarationBody, key: Buffer): string {
  const digest = canonicalHash(body);
  const document = { ...body, digest, signature: signDigest(digest, key) };
  return `${JSON.stringify(document, null, 2)}\n`;
}

