import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { showInformation, showQuickPick, showWarning } from '../visible';
import type { SkillRootKind } from '../../core/declaration/declarationModel';
import type { SkillCandidate } from '../../core/skills/discovery';
import type { ScanFinding } from '../../core/scan/scan';
import { acceptReviewedSkill, trustReviewedSkillRoot } from '../../core/app/skillConsent';
import { shortPin } from '../../core/app/approve';
import { findingLines, findingStateWords } from '../findingWords';
import type { Ctx } from '../ctx';
import { trustWord, type RootView, type SkillRoots, type SkillsSnapshot } from './skillRoots';
import { visibleLine } from '../../core/json/visibleText';
import { l10n } from '../l10nLookup';

const SEVERITY_ICON: Record<ScanFinding['severity'], string> = { error: 'error', warning: 'warning', info: 'info' };

/**
 * Programmatic form of "DSH: Review Skill Roots" (tests, other commands): no UI.
 * `list` refreshes and returns the roots; `trust` / `distrust` act on one root path.
 */
export interface ReviewRequest {
  action: 'list' | 'trust' | 'distrust' | 'accept';
  root?: string;
  /** `accept`: the SKILL.md whose content to accept despite its scan findings. */
  file?: string;
}

export interface ReviewResult {
  outcome: 'listed' | 'trusted' | 'distrusted' | 'accepted' | 'cancelled' | 'unknown-root' | 'unknown-skill' | 'restricted' | 'changed-during-review' | 'cannot-pin';
  snapshot: SkillsSnapshot;
}

function isReviewRequest(arg: unknown): arg is ReviewRequest {
  return typeof arg === 'object' && arg !== null && ['list', 'trust', 'distrust', 'accept'].includes((arg as { action?: unknown }).action as string);
}

function tilde(p: string): string {
  const home = os.homedir();
  return p === home || p.startsWith(home + path.sep) ? `~${p.slice(home.length)}` : p;
}

function kindWord(kind: SkillRootKind): string {
  switch (kind) {
    case 'project-dsh': return l10n.t('project (.dsh/skills)');
    case 'project-agents': return l10n.t('project (.agents/skills)');
    case 'custom': return l10n.t('custom root (dsh.skills.customRoots)');
    case 'user-dsh': return l10n.t('user (DSH home)');
    case 'user-agents': return l10n.t('user (agents home)');
  }
}

function invocability(c: SkillCandidate): string {
  const inv = c.analysis.skill!.invocation;
  if (inv.modelInvocable && inv.userInvocable) return l10n.t('the model and the user can invoke it');
  if (inv.modelInvocable) return l10n.t('only the model can invoke it');
  if (inv.userInvocable) return l10n.t('only the user can invoke it');
  return l10n.t('nobody can invoke it');
}

const ICON: Record<RootView['trust'], string> = { trusted: '$(verified)', untrusted: '$(shield)', changed: '$(warning)' };

/**
 * "DSH: Review Skill Roots": each root with its skills (name, description, invocability) and its
 * trust state; the user trusts (pinned to the root's content hash, recorded host-side) or
 * distrusts it. Trusting needs a trusted workspace: in Restricted Mode the workspace's content
 * has not been accepted, and neither should its skills be.
 */
export class SkillReview {
  constructor(
    private readonly roots: SkillRoots,
    private readonly ctx: Ctx,
  ) {}

  private get log(): vscode.LogOutputChannel {
    return this.ctx.log;
  }

  async run(arg?: unknown): Promise<ReviewResult> {
    await this.roots.refreshNow();
    if (isReviewRequest(arg)) {
      if (arg.action === 'list') return this.result('listed');
      if (arg.action === 'accept') return this.accept(arg.file, false);
      const view = this.roots.roots().find((v) => v.root.path === arg.root);
      if (!view) return this.result('unknown-root');
      return arg.action === 'trust' ? this.trust(view, false) : this.distrust(view, false);
    }
    return this.interactive();
  }

  private result(outcome: ReviewResult['outcome']): ReviewResult {
    return { outcome, snapshot: this.roots.snapshot() };
  }

  private async interactive(): Promise<ReviewResult> {
    // Restricted Mode: discovery has not read the workspace, so "no root" would be untrue.
    if (!vscode.workspace.isTrusted) {
      const manage = l10n.t('Manage Workspace Trust');
      void showInformation(
        l10n.t('Skill roots are discovered once you trust this workspace: in Restricted Mode DSH Bridge does not read its files, SKILL.md included.'), manage,
      ).then((c) => { if (c === manage) void vscode.commands.executeCommand('workbench.trust.manage'); });
      return this.result('restricted');
    }
    const views = this.roots.roots();
    if (views.length === 0) {
      void showInformation(l10n.t('DSH loads no skill root here: none of .dsh/skills, .agents/skills, the custom roots or the user roots exists.'));
      return this.result('listed');
    }
    const picked = await showQuickPick(views.map((view) => {
      const kept = view.root.candidates.filter((c) => c.analysis.skill);
      return {
        view,
        label: `${ICON[view.trust]} ${tilde(view.root.path)}`,
        description: `${kindWord(view.root.kind)} \u00b7 ${view.gated ? trustWord(view.trust) : l10n.t('your own, not gated')}`,
        detail: kept.length === 0 ? l10n.t('no skill that DSH loads')
          : kept.length === 1 ? l10n.t('1 skill: {0}', kept[0].analysis.skill!.name)
            : l10n.t('{0} skills: {1}', kept.length, kept.map((c) => c.analysis.skill!.name).join(', ')),
      };
    }), { title: l10n.t('DSH Skill Roots'), placeHolder: l10n.t('Pick a root to see its skills and trust or distrust it'), matchOnDetail: true, ignoreFocusOut: true });
    if (!picked) return this.result('cancelled');
    return this.reviewRoot(picked.view);
  }

  private async reviewRoot(view: RootView): Promise<ReviewResult> {
    type Item = vscode.QuickPickItem & { action?: 'trust' | 'distrust' | 'accept'; file?: string };
    const accepts: Item[] = [];
    const items: Item[] = [{ label: l10n.t('Skills'), kind: vscode.QuickPickItemKind.Separator }];
    for (const c of view.root.candidates) {
      if (c.analysis.skill) {
        const s = c.analysis.skill;
        items.push({
          label: `$(book) ${s.name}`,
          description: [
            invocability(c),
            ...(c.winner ? [] : [l10n.t('shadowed by another root')]),
            ...(view.gated && view.trust !== 'trusted' ? [l10n.t('withheld from DSH sessions until you trust this root')] : []),
            ...(c.scan.findings.length ? [findingStateWords(this.roots.scanGate(c), c.scan.findings.length)] : []),
          ].join(' \u00b7 '),
          detail: s.description,
          file: c.file,
        });
        // One row per finding, under its skill: a line each, so none is cut off behind another.
        for (const f of c.scan.findings) {
          const [head, ...rest] = findingLines(f);
          items.push({ label: `$(${SEVERITY_ICON[f.severity]}) ${head}`, detail: rest.join(' \u2014 '), file: c.file });
        }
        if (this.roots.scanGate(c) === 'withheld') {
          accepts.push({
            label: `$(check) ${l10n.t('Accept "{0}" despite its findings', s.name)}`,
            detail: l10n.t('Accepted at this content ({0}); any change of the SKILL.md withholds it again.', shortPin(c.scan.pin)),
            action: 'accept',
            file: c.file,
          });
        }
      } else {
        items.push({ label: `$(error) ${c.entry}`, description: l10n.t('DSH ignores this file (see the Problems panel)'), file: c.file });
      }
    }
    items.push({ label: l10n.t('Trust'), kind: vscode.QuickPickItemKind.Separator }, ...accepts);
    if (view.gated && view.trust !== 'trusted' && view.root.pin) {
      items.push({
        label: view.trust === 'changed' ? `$(check) ${l10n.t('Trust the changed content of this root')}` : `$(check) ${l10n.t('Trust this root')}`,
        detail: l10n.t('Skills are instructions DSH gives the model as trusted. Trust is recorded in the DSH home, pinned to this content ({0}); any change asks again.', shortPin(view.root.pin)),
        action: 'trust',
      });
    }
    if (this.roots.recordedPin(view.root.path) !== undefined) {
      items.push({ label: `$(circle-slash) ${l10n.t('Distrust this root')}`, action: 'distrust' });
    }
    const picked = await showQuickPick(items, {
      title: visibleLine(`${tilde(view.root.path)} \u2014 ${trustWord(view.trust)}`),
      placeHolder: l10n.t('Pick a skill to open it, or an action'),
      matchOnDescription: true, matchOnDetail: true, ignoreFocusOut: true,
    });
    if (!picked) return this.result('cancelled');
    if (picked.action === 'accept') return this.accept(picked.file, true);
    if (picked.file) {
      await vscode.window.showTextDocument(vscode.Uri.file(picked.file), { preview: true });
      return this.result('cancelled');
    }
    if (picked.action === 'trust') return this.trust(view, true);
    if (picked.action === 'distrust') return this.distrust(view, true);
    return this.result('cancelled');
  }

  private async trust(view: RootView, interactive: boolean): Promise<ReviewResult> {
    if (!vscode.workspace.isTrusted) {
      this.log.info(`trusting skill root ${view.root.path} refused: Restricted Mode`);
      if (interactive) void showWarning(l10n.t('Trusting a skill root needs a trusted workspace (Restricted Mode is on).'));
      return this.result('restricted');
    }
    // The pin the user reviewed must still be the content on disk.
    const trust = await trustReviewedSkillRoot(this.ctx.ports(), this.roots.sessionSkills(view.root.path), view.root.path, view.root.pin);
    if (trust.outcome === 'cannot-pin') {
      if (interactive) void showWarning(l10n.t('{0} cannot be trusted: it is too large to pin.', tilde(view.root.path)));
      return this.result('cannot-pin');
    }
    if (trust.outcome === 'pin-changed') {
      this.log.info(`trusting skill root ${view.root.path} refused: it changed during the review`);
      if (interactive) void showWarning(l10n.t('{0} changed while you reviewed it; review it again.', tilde(view.root.path)));
      await this.roots.refreshNow();
      return this.result('changed-during-review');
    }
    if (trust.outcome !== 'trusted') return this.result('unknown-root');
    this.log.info(`trusted skill root ${view.root.path} at ${trust.pin}`);
    await this.roots.refreshNow();
    if (interactive) void showInformation(l10n.t('Trusted {0}: DSH sessions load its skills from their next step, while its content stays the same.', tilde(view.root.path)));
    return this.result('trusted');
  }

  /** Accepts a skill withheld for its scan at its content now (the pin the review showed must still be it). */
  private async accept(file: string | undefined, interactive: boolean): Promise<ReviewResult> {
    if (!vscode.workspace.isTrusted) {
      if (interactive) void showWarning(l10n.t('Accepting a skill needs a trusted workspace (Restricted Mode is on).'));
      return this.result('restricted');
    }
    const view = this.roots.roots().find((v) => v.root.candidates.some((c) => c.file === file && c.analysis.skill));
    const candidate = view?.root.candidates.find((c) => c.file === file);
    if (!view || !candidate || !file) return this.result('unknown-skill');
    // Only a skill the scan withholds, at the content the review showed (read again now).
    const acceptance = await acceptReviewedSkill(this.ctx.ports(), this.roots.sessionSkills(view.root.path), file, candidate.scan.pin);
    if (acceptance.outcome === 'no-skill') return this.result('unknown-skill');
    if (acceptance.outcome === 'pin-changed') {
      if (interactive) void showWarning(l10n.t('{0} changed while you reviewed it; review it again.', tilde(file)));
      await this.roots.refreshNow();
      return this.result('changed-during-review');
    }
    this.log.info(`accepted skill ${file} at ${acceptance.pin}`);
    await this.roots.refreshNow();
    if (interactive) void showInformation(l10n.t('Accepted {0}: DSH sessions load it from their next step, while its content stays the same.', tilde(file)));
    return this.result('accepted');
  }

  private async distrust(view: RootView, interactive: boolean): Promise<ReviewResult> {
    await this.ctx.hostStore().distrustSkillRoot(view.root.path);
    this.log.info(`distrusted skill root ${view.root.path}`);
    await this.roots.refreshNow();
    if (interactive) void showInformation(l10n.t('{0} is no longer trusted: DSH sessions withhold its skills from their next step.', tilde(view.root.path)));
    return this.result('distrusted');
  }
}
