// The client's handler table against the protocol's generated schema: a server message type the client does
// not handle (or a handler for a type that no longer exists) fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { HANDLED_TYPES, ANNOUNCED_TYPES } from '../src/game.js';
import { parseChatLine } from '../src/ui/chat.js';

test('every server message type has a handler, and every handler a type (or one CONTRACT.md announces)', () => {
  // docs/protocol.schema.json is generated from the protocol crate's event tables and held current
  // by its own test, so it is the list of what the server sends.
  const schema = JSON.parse(readFileSync(new URL('../../docs/protocol.schema.json', import.meta.url), 'utf8'));
  const types = Object.keys(schema.serverToClient);
  assert.ok(types.length > 20, `${types.length} types`);
  const missing = types.filter((t) => !HANDLED_TYPES.includes(t));
  assert.deepEqual(missing, [], 'server messages without a handler');
  // Handlers for messages of CONTRACT.md sections 10–11 that other branches add to the protocol
  // are allowed ahead of the schema; any other handler must name a type the server sends.
  const extra = HANDLED_TYPES.filter((t) => !types.includes(t) && !ANNOUNCED_TYPES.includes(t));
  assert.deepEqual(extra, [], 'handlers for types the server does not send');
});

test('chat lines pick their channel', () => {
  assert.deepEqual(parseChatLine('hello', 'all'), { text: 'hello', channel: 'local' });
  assert.deepEqual(parseChatLine('/g hi all', 'all'), { text: 'hi all', channel: 'global' });
  assert.deepEqual(parseChatLine('hi', 'global'), { text: 'hi', channel: 'global' });
  assert.deepEqual(parseChatLine('@Ann psst', 'all'), { text: 'psst', channel: 'private', to: 'Ann' });
  assert.deepEqual(parseChatLine('/w Ann psst', 'all'), { text: 'psst', channel: 'private', to: 'Ann' });
  assert.equal(parseChatLine('   ', 'all'), null);
  // Names may hold a space: the recipient is one word unless marked or known.
  assert.deepEqual(parseChatLine('@Gwen meet at the bank', 'all'), { text: 'meet at the bank', channel: 'private', to: 'Gwen' });
  assert.deepEqual(parseChatLine('/w Gwen meet me', 'local'), { text: 'meet me', channel: 'private', to: 'Gwen' });
  assert.deepEqual(parseChatLine('@Ann Lee: hi there', 'all'), { text: 'hi there', channel: 'private', to: 'Ann Lee' });
  assert.deepEqual(parseChatLine('@ann lee hi there', 'all', ['Ann Lee']), { text: 'hi there', channel: 'private', to: 'ann lee' });
  assert.deepEqual(parseChatLine('@Ann lee hi', 'all', ['Bob']), { text: 'lee hi', channel: 'private', to: 'Ann' });
});
