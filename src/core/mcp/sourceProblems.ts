import { nodeRange, type Node } from '../json/jsonTree';
import type { LineIndex, Range } from '../json/text';
import { makeProblem, type Problem, type ProblemCode, type RelatedInformation } from '../problems/problems';

/** The reason given for a string the declaration cannot hold. */
export const LONE_SURROGATE = 'a string contains an unpaired UTF-16 surrogate (\\uD800-\\uDFFF)';

/** The problems found in one source file, located in its text. */
export class SourceProblems {
  readonly list: Problem[] = [];

  constructor(readonly file: string, readonly lines: LineIndex) {}

  add(code: ProblemCode, range: Range, args: Record<string, string | number> = {}, extra: { related?: RelatedInformation[]; server?: string } = {}) {
    this.list.push(makeProblem(code, this.file, range, args, extra));
  }

  range(node: Node): Range {
    return nodeRange(this.lines, node);
  }

  /** Range of a part of a string value; exact when the JSON string has no escapes. */
  subRange(node: Node, value: string, index: number, length: number): Range {
    const raw = this.lines.text.slice(node.offset + 1, node.offset + node.length - 1);
    if (raw === value) return this.lines.rangeAt(node.offset + 1 + index, length);
    return this.range(node);
  }
}
