/**
 * Every spelling of a path reaches the same decision in the gate and in the file server, because
 * both read the one normalised target: a table of encodings of the page, of an asset, of the
 * WebSocket path and of escapes from the static root, sent byte for byte over raw sockets.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, removeTempDir } from '../../engine/test/helpers/index.js';
import { type ServeHandle, startServe } from '../src/serve/server.js';
import { rawExchange, rawGet } from './raw-http.js';
import { createStubHost } from './stub-host.js';

const TOKEN = 'T'.repeat(43);
const PAGE = 'PAGE-MARKER';
const ASSET = 'ASSET-MARKER';
const SECRET = 'OUTSIDE-SECRET';

/** root/ is the renderer build; outside/ holds what no request may read, also through symlinks. */
function buildTree(dir: string): string {
  const root = join(dir, 'root');
  mkdirSync(join(root, 'assets'), { recursive: true });
  mkdirSync(join(dir, 'outside'));
  writeFileSync(join(root, 'index.html'), `<!doctype html><div id="root">${PAGE}</div>`);
  writeFileSync(join(root, 'assets', 'app.js'), `console.log('${ASSET}')`);
  writeFileSync(join(root, '.env'), SECRET);
  writeFileSync(join(dir, 'outside', 'secret.txt'), SECRET);
  writeFileSync(join(dir, 'root-sibling.txt'), SECRET);
  symlinkSync(join(dir, 'outside', 'secret.txt'), join(root, 'assets', 'escape.txt'));
  symlinkSync(join(dir, 'outside'), join(root, 'linked'));
  return root;
}

const PAGE_SPELLINGS = [
  '/',
  '/index.html',
  '/%69ndex.html',
  '/%69%6E%64%65%78%2E%68%74%6D%6C',
  '/INDEX.HTML',
  '/Index.%48tml',
  '//index.html',
  '///',
  '/./index.html',
  '/assets/../index.html',
  '/assets/..%2findex.html',
  '/assets/%2E%2E/index.html',
  '/assets%2F..%2Findex.html',
];

const ASSET_SPELLINGS = [
  '/assets/app.js',
  '/assets/%61pp.js',
  '//assets//app.js',
  '/assets/./app.js',
  '/x/../assets/app.js',
];

/** Escapes from the static root and spellings nobody serves: never 200, never the secret. */
const REFUSED: ReadonlyArray<readonly [string, number]> = [
  ['/../outside/secret.txt', 400],
  ['/%2e%2e/outside/secret.txt', 400],
  ['/%2E%2E%2Foutside%2Fsecret.txt', 400],
  ['/assets/../../outside/secret.txt', 400],
  ['/..%2froot-sibling.txt', 400],
  ['/..%5coutside%5csecret.txt', 400],
  ['/%5C..%5C..%5Csecret.txt', 400],
  ['/%00', 400],
  ['/assets/app.js%00.html', 400],
  ['/%zz', 400],
  ['/%C0%AE%C0%AE/outside/secret.txt', 400],
  ['/%252e%252e/outside/secret.txt', 404],
  ['/assets/escape.txt', 404],
  ['/linked/secret.txt', 404],
  ['/.env', 404],
  ['/assets/.%2e/.env', 404],
  ['/index.html;jsessionid=x', 404],
  ['/assets/app.js;x', 404],
  ['/assets/index.html', 404],
  ['/assets', 404],
];

describe('serve: the gate and the file server read one normalised path', () => {
  let dir: string;
  let served: ServeHandle;

  beforeAll(async () => {
    dir = makeTempDir('tw-paths-');
    served = await startServe({ host: createStubHost(), port: 0, rendererDir: buildTree(dir), token: TOKEN });
  });

  afterAll(async () => {
    await served.close();
    removeTempDir(dir);
  });

  it.each(PAGE_SPELLINGS)(
    '%s is the page: served without a token or with the right one, refused with a wrong one',
    async (path) => {
      for (const query of ['', `?token=${TOKEN}`]) {
        const answer = await rawGet(served.port, `${path}${query}`);
        expect(answer.status).toBe(200);
        expect(answer.body).toContain(PAGE);
        expect(answer.text.toLowerCase()).toContain('cache-control: no-store');
      }
      for (const query of ['?token=wrong', `?token=${TOKEN}&token=${TOKEN}`, `?TOKEN=x&token=${TOKEN}x`]) {
        const answer = await rawGet(served.port, `${path}${query}`);
        expect(answer.status).toBe(401);
        expect(answer.body).not.toContain(PAGE);
      }
    },
  );

  it.each(ASSET_SPELLINGS)('%s is the asset', async (path) => {
    const answer = await rawGet(served.port, path);
    expect(answer.status).toBe(200);
    expect(answer.body).toContain(ASSET);
  });

  it.each(REFUSED)('%s is refused with %i and leaks nothing', async (path, status) => {
    const answer = await rawGet(served.port, path);
    expect(answer.status).toBe(status);
    expect(answer.body).not.toContain(SECRET);
    expect(answer.body).not.toContain(PAGE);
  });

  it('refuses targets that are not origin-form with 400, and keeps serving', async () => {
    for (const target of [
      '*',
      'http://127.0.0.1/',
      `http://127.0.0.1:${served.port}/index.html`,
      '//x:99999/',
      'http://[',
    ]) {
      const answer = await rawGet(served.port, target);
      expect(answer.status === 400 || answer.status === 404).toBe(true);
      expect(answer.body).not.toContain(PAGE);
    }
    expect((await rawGet(served.port, '/')).status).toBe(200);
  });

  it.each(['/ws', '/%77s', '//ws', '/./ws', '/x/../ws', '/w%73'])(
    'the WebSocket at %s needs the token, however the path is spelled',
    async (path) => {
      const upgrade = (query: string) =>
        rawExchange(
          served.port,
          [
            `GET ${path}${query} HTTP/1.1`,
            `Host: 127.0.0.1:${served.port}`,
            `Origin: http://127.0.0.1:${served.port}`,
            'Connection: Upgrade',
            'Upgrade: websocket',
            'Sec-WebSocket-Version: 13',
            'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
            '',
            '',
          ].join('\r\n'),
        );
      expect((await upgrade('')).status).toBe(401);
      expect((await upgrade('?token=wrong')).status).toBe(401);
      expect((await upgrade(`?token=${TOKEN}&token=${TOKEN}`)).status).toBe(401);
    },
  );
});
