// Helpers shared by the integration suites. Plain CommonJS: the suites run as they are in the
// extension host, under test/harness/run-integration.mjs (code-server) or @vscode/test-cli.
'use strict';
const path = require('path');
const vscode = require('vscode');

const EXTENSION_ID = 'dsh-bridge.dsh-bridge';

function extension() {
  const ext = vscode.extensions.getExtension(EXTENSION_ID);
  if (!ext) throw new Error(`extension ${EXTENSION_ID} is not loaded in this extension host`);
  return ext;
}

/** Absolute path of the bundle the manifest points at (dist/extension.js). */
function bundlePath(ext) {
  return path.resolve(ext.extensionPath, ext.packageJSON.main);
}

/** Polls `probe` until it returns a truthy value; rejects with `what` after `ms`. */
async function waitFor(probe, ms, what) {
  const until = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > until) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function workspaceFolder() {
  const folders = vscode.workspace.workspaceFolders || [];
  if (folders.length !== 1) throw new Error(`expected one workspace folder, got ${folders.length}`);
  return folders[0];
}

/** 0-based {line, character} (UTF-16 units, like VS Code) of `offset` in `text`. */
function positionAt(text, offset) {
  const before = text.slice(0, offset);
  const line = before.split('\n').length - 1;
  return { line, character: offset - (before.lastIndexOf('\n') + 1) };
}

/**
 * Range of the JSON value at `jsonPath` (e.g. ['servers', 'x', 'type']) in a JSONC text; for a
 * string it includes the quotes. Uses the repo's jsonc-parser, independently of the extension.
 */
function valueRange(ext, text, jsonPath) {
  const jsonc = require(path.join(ext.extensionPath, 'node_modules', 'jsonc-parser'));
  const node = jsonc.findNodeAtLocation(jsonc.parseTree(text), jsonPath);
  if (!node) throw new Error(`no value at ${JSON.stringify(jsonPath)}`);
  return {
    text: text.slice(node.offset, node.offset + node.length),
    start: positionAt(text, node.offset),
    end: positionAt(text, node.offset + node.length),
  };
}

/**
 * The timings the extension reports about itself, if its API offers them (activationMs: time in
 * activate(); startupMs(): deferred feature start, once done). Waits up to `ms` for startupMs.
 * Informational: returns strings for printing, 'n/a' when the API has no such field.
 */
async function selfReportedTimings(ext, ms = 10000) {
  const api = ext.exports || {};
  const fmt = (v) => (typeof v === 'number' ? `${v.toFixed(1)} ms` : 'n/a');
  let startup;
  if (typeof api.startupMs === 'function') {
    const until = Date.now() + ms;
    while ((startup = api.startupMs()) === undefined && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  }
  return { activate: fmt(api.activationMs), startup: fmt(startup) };
}

/** A deliberate failure requested through DSH_BRIDGE_FAIL_DEMO=1|all|integration. */
function failDemoRequested() {
  return ['1', 'all', 'integration'].includes(process.env.DSH_BRIDGE_FAIL_DEMO || '');
}

/**
 * The document the extension host holds now for `uri` (opened if it holds none). A document
 * object can be closed under a test, e.g. when the workbench drops and re-creates its model
 * while its own MCP discovery reads `.vscode/mcp.json`; the URI then names another, live object.
 */
async function liveDocument(uri) {
  const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString() && !d.isClosed);
  return open || vscode.workspace.openTextDocument(uri);
}

/** The text of the live document of `uri`, or undefined when none is open. */
function liveText(uri) {
  const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString() && !d.isClosed);
  return open ? open.getText() : undefined;
}

/**
 * Replaces the whole text of a document and resolves with the live document that holds exactly
 * that text (its version is the one after the edit). The range is not taken from `getText()`:
 * the extension host's copy of the text can lag the editor's (a reload from disk in flight), and
 * a range that ends early leaves a tail behind; an end past the last line is clamped by the
 * editor. The document is looked up by URI on every attempt: the object a test holds may have
 * been closed and re-opened meanwhile (see {@link liveDocument}), and waiting on the closed one
 * would wait for ever.
 */
async function replaceDocument(doc, text) {
  // An edit can be refused while the workbench reloads the file from disk (an earlier test
  // wrote it): the whole-document replace is idempotent, so it is applied again until it holds.
  const uri = doc.uri;
  const until = Date.now() + 20000;
  let applied = false;
  let live = await liveDocument(uri);
  while (live.isClosed || live.getText() !== text) {
    if (Date.now() > until) {
      throw new Error(`timed out after 20000 ms waiting for the document to hold the replaced text (last applyEdit: ${applied}; `
        + `live document closed: ${live.isClosed}; length ${live.getText().length} vs ${text.length})`);
    }
    const edit = new vscode.WorkspaceEdit();
    edit.replace(uri, new vscode.Range(0, 0, Math.max(live.lineCount, 1) + 1_000_000, 0), text);
    applied = await vscode.workspace.applyEdit(edit);
    await waitFor(async () => {
      live = await liveDocument(uri);
      return !live.isClosed && live.getText() === text;
    }, 3000, 'the document to hold the replaced text').catch(() => {});
  }
  return live;
}

/**
 * The code of one of the extension's diagnostics: always `{value, target}` (target: the link to
 * its explanation); anything else fails the test that reads it.
 * @param {vscode.Diagnostic} d
 * @returns {{ value: string | number, target: vscode.Uri }}
 */
function codeLink(d) {
  const code = d.code;
  if (typeof code !== 'object' || code === null) throw new Error(`diagnostic "${d.message}" has no {value, target} code: ${JSON.stringify(code)}`);
  return code;
}

module.exports = {
  codeLink, replaceDocument, liveDocument, liveText, EXTENSION_ID, extension, bundlePath, waitFor, workspaceFolder, positionAt, valueRange, selfReportedTimings, failDemoRequested,
};
