import { strict as assert } from 'node:assert';
import { firstLines, secretMask } from '../../../../src/core/tools/maskSecrets';
import { timedWithin } from '../../helpers';

describe('masking what a server wrote', () => {
  it('masks known values and credential-shaped assignments, keeps the rest', () => {
    const text = 'starting with key abcd1234\nAPI_KEY=zzz9\nAuthorization: Bearer abcdefghijkl\nready\n\n';
    assert.equal(secretMask(['abcd1234', 'ab']).text(text), 'starting with key ***\nAPI_KEY=***\nAuthorization: ***\nready\n\n');
    assert.deepEqual(firstLines(text, ['abcd1234'], 2), ['starting with key ***', 'API_KEY=***']);
  });

  it('masks well-known credential shapes, a private key with its body, a password in a URL', () => {
    const key = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nQyNTUxOQAAACD=\n-----END OPENSSH PRIVATE KEY-----';
    assert.equal(secretMask([]).text(`using ghp_${'a'.repeat(36)} and sk-proj-${'b'.repeat(20)}`), 'using *** and ***');
    assert.equal(secretMask([]).text(`key:\n${key}\nready (pid 7)`), 'key:\n***\nready (pid 7)');
    assert.equal(secretMask([]).text('connecting to postgresql://app:hunter22@db:5432/app'), 'connecting to postgresql://app:***@db:5432/app');
    assert.equal(secretMask([]).text('"client_secret": "abc", config.token=xyz, plain=1'), '"client_secret": "***", config.token=***, plain=1');
  });

  it('takes time linear in the text (a server chooses it: up to 10 MiB)', () => {
    // 64 KiB of "a." took 13 s with a name pattern that rescanned from every dot (quadratic).
    for (const unit of ['a.', 'a-', 'key', '-----BEGIN ', 'x://', 'Bearer ']) {
      const text = unit.repeat(Math.ceil((64 << 10) / unit.length));
      const { ok, result: ms } = timedWithin(() => {
        const started = Date.now();
        secretMask(['abcd1234']).text(text);
        return Date.now() - started;
      }, (t) => t < 1000);
      assert.ok(ok, `${JSON.stringify(unit)}: ${ms} ms for 64 KiB`);
    }
  });

  it('the start of a longer text: what the cut split shows no part of a secret', () => {
    const secret = 'ghp_0123456789abcdefghij0123456789abcdefgh';
    const mask = secretMask([secret, 'multi\nline-secret']);
    assert.equal(mask.head(`ready\nusing ${secret.slice(0, 36)}`), 'ready\n', 'an unfinished last line is dropped');
    assert.equal(mask.head(`ready\nkey multi\n`), 'ready\nkey ***', 'a known value with a line break, cut after it');
    assert.equal(mask.head(`one ${secret}\ntwo\nthr`), 'one ***\ntwo\n');
  });

  it('masks every string of a JSON value, keys too, at any depth (a copy)', () => {
    const mask = secretMask(['s3cr3t-value']);
    const value = { a: ['x s3cr3t-value', { 's3cr3t-value': 1, n: null, b: true }], ['__proto__']: 'password=hunter2' };
    assert.deepEqual(mask.json(value), { a: ['x ***', { '***': 1, n: null, b: true }], ['__proto__']: 'password=***' });
    assert.equal(value.a[0], 'x s3cr3t-value', 'the input is left as it is');
    let deep: unknown = 's3cr3t-value';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    let out = mask.json(deep);
    for (let i = 0; i < 100_000; i++) out = (out as unknown[])[0];
    assert.equal(out, '***');
  });
});
