// What a request to the proxy asks for, and the framing checks that keep one request from carrying another.
import { describe, expect, it } from 'vitest';
import {
  parseAuthority,
  passedHeaders,
  requestFraming,
  requestTarget,
} from '../../../src/network/proxy/requests.js';

describe('reading requests', () => {
  it('parseAuthority takes host:port and [v6]:port, nothing else', () => {
    expect(['a.test:443', '[::1]:5432', 'a.test', 'a.test:0', '<x>:443', ':443'].map(parseAuthority)).toEqual(
      [
        { host: 'a.test', port: 443 },
        { host: '::1', port: 5432 },
        undefined,
        undefined,
        undefined,
        undefined,
      ],
    );
  });

  it('requestTarget reads an absolute URI before a Host header, and defaults to port 80', () => {
    expect(requestTarget({ url: 'http://a.test:8080/p?q', headers: { host: 'b.test' } })).toEqual({
      host: 'a.test',
      port: 8080,
      path: '/p?q',
      authority: 'a.test:8080',
    });
    expect(requestTarget({ url: '/p', headers: { host: 'b.test' } })).toMatchObject({
      host: 'b.test',
      port: 80,
    });
    expect(requestTarget({ url: '/p', headers: {} })).toHaveProperty('problem');
  });

  it('passedHeaders drops hop-by-hop headers and those Connection names, and sets Host first', () => {
    expect(
      passedHeaders(
        [
          'host',
          'x',
          'Connection',
          'X-A, close',
          'X-A',
          '1',
          'Keep-Alive',
          '5',
          'X-B',
          '2',
          'TE',
          'trailers',
        ],
        'a.test',
      ),
    ).toEqual(['Host', 'a.test', 'X-B', '2']);
  });

  it('requestFraming reads a body as a length, as chunks, or as none', () => {
    expect(requestFraming(['Host', 'a', 'Content-Length', '12'])).toEqual({ body: 'length', length: 12 });
    expect(requestFraming(['Host', 'a', 'Transfer-Encoding', ' Chunked '])).toEqual({ body: 'chunked' });
    expect(requestFraming(['Host', 'a'])).toEqual({ body: 'none' });
  });

  it.each([
    [
      'CL.TE and TE.CL',
      ['Content-Length', '6', 'Transfer-Encoding', 'chunked'],
      'both Transfer-Encoding and Content-Length',
    ],
    ['another coding', ['Transfer-Encoding', 'identity, chunked'], 'Transfer-Encoding: chunked alone'],
    ['a coding of odd spelling', ['Transfer-Encoding', 'xchunked'], 'Transfer-Encoding: chunked alone'],
    [
      'two codings',
      ['Transfer-Encoding', 'chunked', 'Transfer-Encoding', 'chunked'],
      'Transfer-Encoding: chunked alone',
    ],
    ['two lengths', ['Content-Length', '1', 'Content-Length', '1'], 'more than one Content-Length'],
    ['a signed length', ['Content-Length', '+1'], 'not a number'],
    ['two hosts', ['Host', 'b'], 'more than one Host'],
    ['an obs-fold', ['X-A', 'b\r\n c'], 'line break or a control character'],
    ['a bare LF', ['X-A', 'b\nc'], 'line break or a control character'],
    ['a bare CR', ['X-A', 'b\rc'], 'line break or a control character'],
    ['a NUL', ['X-A', 'b\0c'], 'line break or a control character'],
    ['a name with a space', ['Transfer-Encoding ', 'chunked'], 'not a token'],
  ])('requestFraming refuses %s', (_case, headers, problem) => {
    const framing = requestFraming(['Host', 'a', ...headers]);
    expect(framing).toHaveProperty('problem');
    expect((framing as { problem: string }).problem).toContain(problem);
  });
});
