// Mocha hooks every e2e flow shares (kept out of the driver, which does not depend on mocha).
import { startEditor } from '../harness/e2e-driver.mjs';

/**
 * The editor of one `describe`'s flows, the same start-up for every flow: started before its
 * tests with `options` (startEditor's; or an async function, run in the `before` hook, that
 * returns them), a screenshot named after each failed test, closed after the suite. The value
 * returned stands for that editor: its properties and methods are the running editor's (read
 * inside a hook or a test, once it has started).
 */
export function suiteEditor(options = {}) {
  let editor;
  before(async function () {
    editor = await startEditor(typeof options === 'function' ? await options.call(this) : options);
  });
  afterEach(async function () {
    if (editor && this.currentTest.state === 'failed') await editor.screenshot(`failed-${this.currentTest.title}`).catch(() => {});
  });
  after(async function () {
    if (editor) await editor.close();
  });
  return new Proxy({}, {
    get(_, property) {
      if (property === 'then') return undefined; // not a promise
      if (!editor) throw new Error(`the editor of this suite has not started (reading .${String(property)})`);
      const value = editor[property];
      return typeof value === 'function' ? value.bind(editor) : value;
    },
  });
}
