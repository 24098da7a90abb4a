import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useApp } from '../helpers/app.ts';
import { parse } from '../helpers/server.ts';

const page = { bytes: '<html><body><h1>Title</h1><p>Body text.</p></body></html>', filename: 'page.html' };

describe('POST /v2/parse request validation', () => {
  const server = useApp();

  async function expect400(options: unknown, code: string, message: RegExp) {
    const { status, body } = await parse(server(), { file: page, options });
    assert.equal(status, 400, JSON.stringify(body));
    assert.equal(body.success, false);
    assert.equal(body.code, code);
    assert.match(body.error, message);
  }

  describe('multipart', () => {
    it('refuses a request without a file part', async () => {
      const { status, body } = await parse(server(), { options: {} });
      assert.equal(status, 400);
      assert.equal(body.success, false);
      assert.equal(body.code, 'BAD_REQUEST');
      assert.match(body.error, /Missing file upload.*'file'.*'options'/);
    });

    it('refuses a JSON body', async () => {
      const res = await server().fetch('/v2/parse', {
        method: 'POST',
        headers: { authorization: `Bearer ${server().key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: 'x' }),
      });
      assert.equal(res.status, 400);
      const body = (await res.json()) as Record<string, any>;
      assert.equal(body.success, false);
      assert.equal(body.code, 'BAD_REQUEST');
      assert.match(body.error, /Missing file upload/);
    });

    it('names an unexpected field', async () => {
      const form = new FormData();
      form.append('upload', new Blob(['<p>x</p>']), 'a.html');
      const res = await server().fetch('/v2/parse', {
        method: 'POST',
        body: form,
        headers: { authorization: `Bearer ${server().key}` },
      });
      assert.equal(res.status, 400);
      const body = (await res.json()) as Record<string, any>;
      assert.equal(body.success, false);
      assert.equal(body.code, 'BAD_REQUEST');
      assert.match(body.error, /Unexpected field 'upload'/);
    });

    it('refuses an empty file', async () => {
      const { status, body } = await parse(server(), { file: { bytes: '', filename: 'a.html' } });
      assert.equal(status, 400);
      assert.equal(body.success, false);
      assert.equal(body.code, 'BAD_REQUEST');
      assert.equal(body.error, "The uploaded 'file' is empty.");
    });

    it('accepts options as a JSON part as well as a text field', async () => {
      for (const optionsAsJsonPart of [false, true]) {
        const { status, body } = await parse(server(), {
          file: page,
          options: { formats: ['html'] },
          optionsAsJsonPart,
        });
        assert.equal(status, 200, JSON.stringify(body));
        assert.equal(typeof body.data.html, 'string');
        assert.equal(body.data.markdown, undefined);
      }
    });
  });

  describe('the options part', () => {
    it('must be valid JSON', async () => {
      await expect400('{"formats": [', 'BAD_REQUEST', /Invalid JSON in the 'options' field/);
    });
    it('must be an object', async () => {
      await expect400('[1,2]', 'BAD_REQUEST', /'options' field must parse to a JSON object/);
      await expect400('null', 'BAD_REQUEST', /'options' field must parse to a JSON object/);
    });
    it('rejects unknown keys by name', async () => {
      await expect400(
        { formats: ['markdown'], colour: 'red' },
        'BAD_REQUEST',
        /options has unrecognized key "colour"/,
      );
    });
    it('names the path and rule for each bad value', async () => {
      await expect400(
        { parsers: [{ type: 'pdf', maxPages: 0 }] },
        'BAD_REQUEST',
        /options\.parsers\[0\]\.maxPages must be an integer from 1 to 10000/,
      );
      await expect400(
        { parsers: [{ type: 'pdf', mode: 'turbo' }] },
        'BAD_REQUEST',
        /options\.parsers\[0\]\.mode must be one of fast, auto, ocr/,
      );
      await expect400(
        { parsers: [{ type: 'pdf', pages: true, columns: 2 }] },
        'BAD_REQUEST',
        /options\.parsers\[0\] has unrecognized key "columns"/,
      );
      await expect400(
        { parsers: ['pdf', 'docx'] },
        'BAD_REQUEST',
        /options\.parsers\[1\] must be "pdf" or "image"/,
      );
      await expect400(
        { parsers: [{ type: 'ocr' }] },
        'BAD_REQUEST',
        /options\.parsers\[0\]\.type must be "pdf" or "image"/,
      );
      await expect400(
        { parsers: [{ type: 'image', mode: 'fast' }] },
        'BAD_REQUEST',
        /options\.parsers\[0\] has unrecognized key "mode"/,
      );
      await expect400(
        { timeout: 300001 },
        'BAD_REQUEST',
        /options\.timeout must be an integer from 1000 to 300000/,
      );
      await expect400({ timeout: 1.5 }, 'BAD_REQUEST', /options\.timeout must be an integer/);
      await expect400({ formats: ['pdf'] }, 'BAD_REQUEST', /options\.formats\[0\]/);
      await expect400({ formats: 'markdown' }, 'BAD_REQUEST', /options\.formats must be an array/);
      await expect400(
        { formats: [{ type: 'json', prompt: 'x'.repeat(10001) }] },
        'BAD_REQUEST',
        /options\.formats\[0\]\.prompt must be at most 10000/,
      );
      await expect400(
        { formats: [{ type: 'markdown', extra: 1 }] },
        'BAD_REQUEST',
        /options\.formats\[0\] has unrecognized key "extra"/,
      );
      await expect400(
        { onlyMainContent: 'yes' },
        'BAD_REQUEST',
        /options\.onlyMainContent must be true or false/,
      );
      await expect400(
        { includeTags: ['div[['] },
        'BAD_REQUEST',
        /options\.includeTags\[0\] must be a valid CSS selector/,
      );
      await expect400(
        { excludeTags: 'nav' },
        'BAD_REQUEST',
        /options\.excludeTags must be an array of CSS selectors/,
      );
      // The object form is judged as PII options, so the message names the inner field and rule.
      await expect400(
        { redactPII: { mode: 'model' } },
        'BAD_REQUEST',
        /options\.redactPII\.mode must be one of fast, aggressive, accurate/,
      );
      await expect400(
        { redactPII: { entities: ['EMAIL', 'DNA'] } },
        'BAD_REQUEST',
        /options\.redactPII\.entities\[1\] must be one of PERSON, EMAIL, PHONE, LOCATION, FINANCIAL, SECRET/,
      );
      await expect400(
        { redactPII: { replaceStyle: 'blur' } },
        'BAD_REQUEST',
        /options\.redactPII\.replaceStyle must be one of tag, mask, remove/,
      );
      await expect400(
        { redactPII: 'yes' },
        'BAD_REQUEST',
        /options\.redactPII must be true, false or a PII options object/,
      );
      await expect400(
        { auditMetadata: { username: 'x'.repeat(1025) } },
        'BAD_REQUEST',
        /options\.auditMetadata\.username must be at most 1024/,
      );
      await expect400({ auditMetadata: {} }, 'BAD_REQUEST', /options\.auditMetadata\.username is required/);
      await expect400(
        { auditMetadata: { username: 'a', role: 'x' } },
        'BAD_REQUEST',
        /options\.auditMetadata has unrecognized key "role"/,
      );
      await expect400({ integration: 'myapp' }, 'BAD_REQUEST', /options\.integration Invalid enum value/);
      await expect400(
        { zeroDataRetention: 1 },
        'BAD_REQUEST',
        /options\.zeroDataRetention must be true or false/,
      );
      await expect400({ headers: { a: 1 } }, 'BAD_REQUEST', /options\.headers/);
    });
    it('lists every failing field at once, with zod issues as details', async () => {
      const { status, body } = await parse(server(), {
        file: page,
        options: { timeout: 5, onlyMainContent: 3 },
      });
      assert.equal(status, 400);
      assert.equal(body.code, 'BAD_REQUEST');
      assert.match(body.error, /options\.timeout/);
      assert.match(body.error, /options\.onlyMainContent/);
      assert.ok(Array.isArray(body.details) && body.details.length === 2);
    });
    it('refuses rawHtml with redactPII, naming both, and an empty entities list', async () => {
      // rawHtml is the upload's source as it came, which redaction cannot rewrite (README, PII redaction).
      await expect400(
        { formats: ['markdown', 'rawHtml'], redactPII: true },
        'BAD_REQUEST',
        /options\.formats\[1\] rawHtml cannot be combined with options\.redactPII/,
      );
      await expect400(
        { redactPII: { entities: [] } },
        'BAD_REQUEST',
        /options\.redactPII\.entities must name at least one/,
      );
    });
    it('accepts every documented field and shorthand', async () => {
      const { status, body } = await parse(server(), {
        file: page,
        options: {
          formats: ['markdown', { type: 'links' }, 'images', 'rawHtml', { type: 'html' }],
          onlyMainContent: false,
          includeTags: ['body'],
          excludeTags: ['.ad'],
          headers: { 'x-a': 'b' },
          timeout: 60000,
          parsers: [
            'pdf',
            'image',
            { type: 'pdf', mode: 'fast', maxPages: 3, pages: true, pageMarkdown: true },
          ],
          skipTlsVerification: false,
          removeBase64Images: false,
          blockAds: false,
          redactPII: false,
          proxy: 'basic',
          origin: 'js-sdk@4.42.0',
          integration: '_internal',
          auditMetadata: { username: 'alice' },
          zeroDataRetention: true,
          // Upstream accepts these and forces them for uploads (no cache).
          maxAge: 172800000,
          storeInCache: true,
        },
      });
      assert.equal(status, 200, JSON.stringify(body));
      assert.equal(body.success, true);
      for (const key of ['markdown', 'links', 'images', 'rawHtml', 'html', 'metadata'])
        assert.ok(key in body.data, key);
    });
  });

  describe('scrape-only options', () => {
    it('refuse actions, waitFor, mobile, location and cache options by name', async () => {
      await expect400(
        { actions: [{ type: 'wait', milliseconds: 5 }] },
        'PARSE_UNSUPPORTED_OPTIONS',
        /options\.actions/,
      );
      await expect400({ waitFor: 100 }, 'PARSE_UNSUPPORTED_OPTIONS', /options\.waitFor/);
      await expect400({ mobile: true }, 'PARSE_UNSUPPORTED_OPTIONS', /options\.mobile/);
      await expect400({ location: { country: 'US' } }, 'PARSE_UNSUPPORTED_OPTIONS', /options\.location/);
      await expect400({ minAge: 1000 }, 'PARSE_UNSUPPORTED_OPTIONS', /options\.minAge/);
    });
    it('accept an empty audit username, as upstream does', async () => {
      const { status, body } = await parse(server(), {
        file: page,
        options: { auditMetadata: { username: '' } },
      });
      assert.equal(status, 200, JSON.stringify(body));
    });
    it('refuse browser formats by name', async () => {
      await expect400(
        { formats: ['markdown', 'screenshot'] },
        'PARSE_UNSUPPORTED_OPTIONS',
        /screenshot format \(options\.formats\[1\]\)/,
      );
      await expect400(
        { formats: [{ type: 'changeTracking' }] },
        'PARSE_UNSUPPORTED_OPTIONS',
        /changeTracking/,
      );
      await expect400({ formats: ['branding'] }, 'PARSE_UNSUPPORTED_OPTIONS', /branding/);
    });
    it('refuse proxies other than basic and auto', async () => {
      await expect400({ proxy: 'stealth' }, 'PARSE_UNSUPPORTED_OPTIONS', /options\.proxy "stealth"/);
    });
  });

  describe('file types', () => {
    it('refuses bytes that are no supported format, listing the supported extensions', async () => {
      const junk = Uint8Array.from({ length: 512 }, (_, i) => (i * 131 + 7) % 256);
      const { status, body } = await parse(server(), { file: { bytes: junk, filename: 'blob' } });
      assert.equal(status, 400);
      assert.equal(body.success, false);
      assert.equal(body.code, 'UNSUPPORTED_FILE_TYPE');
      assert.match(body.error, /"blob" is not a supported file type/);
      assert.match(body.error, /\.html, \.htm, \.xhtml.*\.csv.*\.txt.*\.md.*\.json.*\.xml/);
    });
    it('refuses an image when an explicit parsers list leaves out "image", as upstream does', async () => {
      const png = Uint8Array.from([
        0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52,
      ]);
      const { status, body } = await parse(server(), {
        file: { bytes: png, filename: 'scan.png' },
        options: { parsers: ['pdf'] },
      });
      assert.equal(status, 400, JSON.stringify(body));
      assert.equal(body.code, 'UNSUPPORTED_FILE_TYPE');
      assert.match(body.error, /PNG image.*options\.parsers lists "image"/);
      assert.doesNotMatch(body.error, /\.png/);
    });
    it('refuses a .docx whose bytes are junk', async () => {
      const junk = new Uint8Array(4096).map((_, i) => (i * 7919) % 256);
      const { status, body } = await parse(server(), { file: { bytes: junk, filename: 'report.docx' } });
      assert.equal(status, 400, JSON.stringify(body));
      assert.equal(body.code, 'UNSUPPORTED_FILE_TYPE');
      assert.match(body.error, /Word \(DOCX\)/);
    });
    it('parses a mislabelled HTML page as what it is, with a warning', async () => {
      const { status, body } = await parse(server(), { file: { bytes: page.bytes, filename: 'page.pdf' } });
      assert.equal(status, 200, JSON.stringify(body));
      assert.match(body.data.markdown, /# Title/);
      assert.match(body.data.warning, /named as PDF but its bytes are HTML/);
    });
    it('uses the Content-Type when the name has no extension', async () => {
      const { status, body } = await parse(server(), {
        file: { bytes: 'a,b\n1,2\n', filename: 'export', type: 'text/csv' },
      });
      assert.equal(status, 200, JSON.stringify(body));
      assert.match(body.data.markdown, /\| a \| b \|/);
    });
  });
});
