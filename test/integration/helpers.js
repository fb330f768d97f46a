// Helpers shared by the integration suites. Plain CommonJS: the suites run as they are in the
// extension host, under test/harness/run-integration.mjs (code-server) or @vscode/test-cli.
'use strict';
const fs = require('fs');
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

/**
 * The least time any wait of these suites gives the editor. Under load (2 cores, a CPU hog on
 * each, other builds beside) the workbench and the extension host take many times their quiet
 * time for a round trip; a passing run never waits this long, a failing one reports after it.
 */
const WAIT_FLOOR_MS = 60000;

/** Mocha's bound of one test of these suites: several waits of WAIT_FLOOR_MS fit in it. */
const TEST_TIMEOUT_MS = 300000;

/**
 * Polls `probe` until it returns a truthy value; rejects with `what` after `ms` (the time the
 * call site expects on a quiet machine), or WAIT_FLOOR_MS if that is longer. `what` may be a
 * function, read when the wait fails (the state at that moment).
 */
async function waitFor(probe, ms, what) {
  const bound = Math.max(ms, WAIT_FLOOR_MS);
  const until = Date.now() + bound;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > until) throw new Error(`timed out after ${bound} ms waiting for ${typeof what === 'function' ? what() : what}`);
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
  const until = Date.now() + WAIT_FLOOR_MS;
  let applied = false;
  let live = await liveDocument(uri);
  while (live.isClosed || live.getText() !== text) {
    if (Date.now() > until) {
      throw new Error(`timed out after ${WAIT_FLOOR_MS} ms waiting for the document to hold the replaced text (last applyEdit: ${applied}; `
        + `live document closed: ${live.isClosed}; length ${live.getText().length} vs ${text.length})`);
    }
    const edit = new vscode.WorkspaceEdit();
    edit.replace(uri, new vscode.Range(0, 0, Math.max(live.lineCount, 1) + 1_000_000, 0), text);
    applied = await vscode.workspace.applyEdit(edit);
    // A short look, not a bound: the loop above applies the edit again and keeps the bound.
    for (const look = Date.now() + 3000; Date.now() < look; await new Promise((r) => setTimeout(r, 50))) {
      live = await liveDocument(uri);
      if (!live.isClosed && live.getText() === text) break;
    }
  }
  return live;
}

/**
 * Saves the document of `doc`'s URI and resolves with the live document once it is clean and the
 * file on disk holds its text. One `save()` is not enough on a loaded machine: the workbench
 * aborts the save participants after 1750 ms ("Aborted onWillSaveTextDocument-event") and can
 * cancel the save, `save()` returns false while an auto-save (files.autoSave afterDelay, the
 * browser build's default) is writing the same text, and the host learns that the document is
 * clean by a message of its own. So this saves again while the document is dirty and waits for
 * the state, not for a time.
 */
async function saveDocument(doc) {
  const uri = doc.uri;
  let saves = 0;
  let last = '';
  return waitFor(async () => {
    const live = await liveDocument(uri);
    const onDisk = fs.existsSync(uri.fsPath) ? fs.readFileSync(uri.fsPath, 'utf8') : undefined;
    if (!live.isClosed && !live.isDirty && onDisk === live.getText()) {
      if (saves > 1) console.log(`      (saved ${path.basename(uri.fsPath)} after ${saves} save() calls)`);
      return live;
    }
    last = `dirty ${live.isDirty}, closed ${live.isClosed}, on disk ${onDisk === live.getText() ? 'the same' : 'other'} text`;
    if (live.isDirty) {
      saves++;
      await live.save();
    }
    return undefined;
  }, WAIT_FLOOR_MS, () => `${uri.fsPath} to be saved (${saves} save() calls; ${last})`);
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
  codeLink, replaceDocument, saveDocument, liveDocument, WAIT_FLOOR_MS, TEST_TIMEOUT_MS, liveText, EXTENSION_ID, extension, bundlePath, waitFor, workspaceFolder, positionAt, valueRange, selfReportedTimings, failDemoRequested,
};
