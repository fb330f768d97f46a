import type { Node } from '../json/jsonTree';
import type { Template } from '../declaration/template';
import type { ProblemCode, RelatedInformation } from '../problems/problems';
import type { InputInfo } from './inputs';
import { NO_REFS, templateField, type Field, type TemplateContext } from './fieldTemplates';
import type { CommonOptions, SharedMembers } from './serverPin';

/** What every server entry of one file is read with. */
export interface EntryContext extends TemplateContext {
  readonly inputs: ReadonlyMap<string, InputInfo>;
  readonly maxStringBytes: number;
  /** The workspace folder (absolute): relative paths resolve against it. */
  readonly folder: string;
  /** The export options every entry carries: one object, its canonical text computed once. */
  readonly common: CommonOptions;
  readonly shared: SharedMembers | undefined;
  /** The inputs already reported as unmasked: one report per input of the file. */
  readonly unmaskedReported: Set<string>;
}

/** One server entry being read: its problems carry its name, its string fields are kept for the lint and the references. */
export class EntryReading {
  readonly fields: Field[] = [];

  constructor(readonly context: EntryContext, readonly name: string) {}

  problem(code: ProblemCode, at: Node, args: Record<string, string | number> = {}, related?: RelatedInformation[]) {
    const { report } = this.context;
    report.add(code, report.range(at), args, { server: this.name, related });
  }

  /** A string field's template, its variables resolved, remembered. */
  field(kind: Field['kind'], valueNode: Node, key?: string): Template {
    const field = templateField(this.context, this.name, kind, valueNode, key);
    this.fields.push(field);
    return field.template;
  }

  /** A value that is no template (an env number): remembered as written. */
  literalField(kind: Field['kind'], valueNode: Node, key: string, template: string) {
    this.fields.push({ kind, key, node: valueNode, template, refs: NO_REFS, flagged: false });
  }
}
