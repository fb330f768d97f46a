/** The `tools` of each declared server at export: the tool choice and the pins of the last probe. Pure. */
import type { DeclaredServer, DeclaredTools } from '../declaration/declarationModel';
import { choiceFor, type ToolChoiceAnalysis } from './toolChoice';
import { choiceNarrows, type ToolPin } from '../declaration/toolsModel';

/** What the export needs of a recorded probe (host store): the launch pin it ran and its tools' pins. */
export interface RecordedProbe {
  pin: string;
  tools: ReadonlyArray<{ name: string; pin: ToolPin }>;
}

/**
 * Each server with its `tools` section: `choice` when `dsh.tools` narrows it, `pins` when the
 * server was probed with its current launch pin (a probe of an older launch config is ignored:
 * the server is then treated as never probed until it is probed again). Servers with neither
 * are returned as they are.
 */
export function withDeclaredTools(
  servers: readonly DeclaredServer[],
  choices: ToolChoiceAnalysis,
  probes: Readonly<Record<string, RecordedProbe>>,
): DeclaredServer[] {
  return servers.map((server) => {
    const tools: DeclaredTools = {};
    const choice = choiceFor(choices, server.name);
    if (choiceNarrows(choice)) tools.choice = choice;
    const pins = probedToolPins(server, probes);
    if (pins) tools.pins = pins;
    return tools.choice || tools.pins ? { ...server, tools } : server;
  });
}

/**
 * The tool pins an export takes for a server from the recorded probes: those of its probe with
 * its current launch pin, or undefined (never probed, or probed with another launch config).
 * Verify compares them with the declared pins: a newer probe makes the declaration stale.
 */
export function probedToolPins(server: Pick<DeclaredServer, 'serverName' | 'pin'>, probes: Readonly<Record<string, RecordedProbe>>): Record<string, ToolPin> | undefined {
  const probe = Object.hasOwn(probes, server.serverName) ? probes[server.serverName] : undefined;
  if (!probe || probe.pin !== server.pin) return undefined;
  const pins: Record<string, ToolPin> = {};
  for (const t of probe.tools) Object.defineProperty(pins, t.name, { value: t.pin, enumerable: true, writable: true, configurable: true });
  return pins;
}
