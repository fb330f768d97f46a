import { strict as assert } from 'node:assert';
import { editorFreeEnv } from '../../../../src/extension/toolsView/probeEnv';

describe('probeEnv', () => {
  it('the environment a probe passes on leaves out the editor\'s own variables', () => {
    assert.deepEqual(editorFreeEnv({ PATH: '/bin', VSCODE_PID: '1', ELECTRON_RUN_AS_NODE: '1', HOME: '/h', APPLICATION_INSIGHTS_NO_DIAGNOSTIC_CHANNEL: '1' }), { PATH: '/bin', HOME: '/h' });
  });
});
