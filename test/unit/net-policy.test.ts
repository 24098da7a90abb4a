import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isBlockedAddress, NetPolicy } from '../../src/sessions/net-policy.ts';
import { firstPassOnly } from '../helpers/mode.ts';

describe('what a browser session may reach', firstPassOnly('the policy alone, no server'), () => {
  it('blocks private, loopback, link-local, CGNAT and reserved addresses, however written', () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '::1',
      '::',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '::ffff:a9fe:a9fe',
      '64:ff9b::10.0.0.1',
      '2002:7f00:1::',
      '::7f00:1',
      '::ffff:0:7f00:1',
      '64:ff9b:1::a00:1',
    ]) {
      assert.equal(isBlockedAddress(address), true, address);
    }
    for (const address of ['93.184.215.14', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) {
      assert.equal(isBlockedAddress(address), false, address);
    }
  });

  it('checks URLs by scheme and by literal host, after the URL parser has normalised them', () => {
    const policy = new NetPolicy(['intranet.test']);
    assert.equal(policy.refuseUrl('https://example.com/a'), undefined);
    assert.equal(policy.refuseUrl('about:blank'), undefined);
    assert.equal(policy.refuseUrl('data:text/html,hi'), undefined);
    assert.equal(policy.refuseUrl('http://intranet.test/'), undefined);
    assert.match(policy.refuseUrl('file:///etc/passwd')!, /file: URLs/);
    assert.match(policy.refuseUrl('view-source:https://example.com')!, /view-source: URLs/);
    assert.match(policy.refuseUrl('javascript:alert(1)')!, /javascript: URLs/);
    // Decimal, hex and octal forms of 127.0.0.1 are the same address to the URL parser.
    for (const url of ['http://2130706433/', 'http://0x7f000001/', 'http://0177.0.0.1/', 'http://[::1]/']) {
      assert.match(policy.refuseUrl(url)!, /private, loopback or link-local/, url);
    }
    assert.match(policy.refuseUrl('http://api.localhost/')!, /this machine/);
    assert.match(policy.refuseUrl('not a url')!, /not a valid URL/);
  });
});
