import * as path from 'node:path';
import * as z from 'zod/mini';
import { deepFreeze } from '../json/keptByBytes';
import type { StoreFiles } from './storeFiles';

const SkillTrustFile = z.object({ version: z.literal(1), roots: z.record(z.string(), z.string()) });
/**
 * Definitions the user accepted despite an error-level scan finding (core/scan), each bound to its
 * pin: a tool by its definition pin (name, description and input schema), a skill by the SHA-256
 * of its SKILL.md. Any change of the definition makes the acceptance not apply.
 */
const AcceptedFile = z.object({
  version: z.literal(1),
  tools: z.array(z.object({ folder: z.string(), serverName: z.string(), tool: z.string(), pin: z.string() })),
  skills: z.array(z.object({ file: z.string(), pin: z.string() })),
});
export type AcceptedDefinitions = z.infer<typeof AcceptedFile>;
/** The accepted definitions as read: kept and shared by every reader, so not to be changed. */
export type KeptAcceptedDefinitions = { readonly [K in keyof AcceptedDefinitions]: Readonly<AcceptedDefinitions[K]> };
/** Nothing accepted yet: one frozen value, so a reader kept on the list's identity (the plugin's tool gate) sees no change. */
const NO_ACCEPTANCES: KeptAcceptedDefinitions = deepFreeze({ version: 1, tools: [], skills: [] });

/**
 * The user's own word on what a scan or a skill root gate would withhold: trusted skill roots
 * (`skills.json`) and accepted definitions (`accepted.json`). The plugin's skill and tool gates read
 * both at every model step, so both are kept parsed while their bytes stay the same.
 */
export class SkillRecords {
  constructor(private readonly files: StoreFiles) {}

  private get skillsFile(): string {
    return path.join(this.files.bridgeDir, 'skills.json');
  }

  private get acceptedFile(): string {
    return path.join(this.files.bridgeDir, 'accepted.json');
  }

  /** Trusted skill roots: absolute root path -> the content pin the user reviewed. */
  async skillTrust(): Promise<Readonly<Record<string, string>>> {
    return (await this.files.readKeptJson(this.skillsFile, SkillTrustFile))?.roots ?? {};
  }

  async trustSkillRoot(root: string, pin: string): Promise<void> {
    const roots = { ...await this.skillTrust() };
    Object.defineProperty(roots, path.resolve(root), { value: pin, enumerable: true, writable: true, configurable: true });
    await this.files.writeJson(this.skillsFile, { version: 1, roots });
  }

  async distrustSkillRoot(root: string): Promise<void> {
    const roots = { ...await this.skillTrust() };
    delete roots[path.resolve(root)];
    await this.files.writeJson(this.skillsFile, { version: 1, roots });
  }

  /** What the user accepted despite a scan's error (empty before anything was). */
  async acceptedDefinitions(): Promise<KeptAcceptedDefinitions> {
    return (await this.files.readKeptJson(this.acceptedFile, AcceptedFile)) ?? NO_ACCEPTANCES;
  }

  /** Accepts one tool definition of a folder's server (replaces an earlier acceptance of that tool). */
  async acceptTool(folder: string, serverName: string, tool: string, pin: string): Promise<void> {
    const accepted = await this.acceptedDefinitions();
    const absolute = path.resolve(folder);
    const tools = [...accepted.tools.filter((t) => !(t.folder === absolute && t.serverName === serverName && t.tool === tool)), { folder: absolute, serverName, tool, pin }];
    await this.files.writeJson(this.acceptedFile, { ...accepted, tools });
  }

  /** Accepts one SKILL.md at its content (replaces an earlier acceptance of that file). */
  async acceptSkill(file: string, pin: string): Promise<void> {
    const accepted = await this.acceptedDefinitions();
    const absolute = path.resolve(file);
    const skills = [...accepted.skills.filter((s) => s.file !== absolute), { file: absolute, pin }];
    await this.files.writeJson(this.acceptedFile, { ...accepted, skills });
  }
}
