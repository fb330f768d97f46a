// Mocha hooks every e2e flow shares (kept out of the driver, which does not depend on mocha).

/** After each failed test, a screenshot named after it; after the suite, the editor closes. */
export function screenshotFailuresAndClose(currentEditor) {
  afterEach(async function () {
    const editor = currentEditor();
    if (editor && this.currentTest.state === 'failed') await editor.screenshot(`failed-${this.currentTest.title}`).catch(() => {});
  });
  after(async function () {
    const editor = currentEditor();
    if (editor) await editor.close();
  });
}
