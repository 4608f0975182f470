// The chat box's filter: which lines each tab shows, and the kept tab read back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chatVisible, storedTab, CHAT_TABS } from '../src/ui/chat.js';

test('the Game tab shows the narration and notices, not what players say', () => {
  assert.deepEqual(CHAT_TABS, ['all', 'game', 'local', 'global', 'private']);
  const shown = (tab) => ['game', 'system', 'local', 'global', 'private'].filter((c) => chatVisible(tab, c));
  assert.deepEqual(shown('all'), ['game', 'system', 'local', 'global', 'private']);
  assert.deepEqual(shown('game'), ['game', 'system']);
  assert.deepEqual(shown('local'), ['system', 'local']);
  assert.deepEqual(shown('global'), ['system', 'global']);
  assert.deepEqual(shown('private'), ['system', 'private']);
});

test('the kept tab is read back; an unknown or missing one is All', () => {
  assert.equal(storedTab('game'), 'game');
  assert.equal(storedTab('private'), 'private');
  assert.equal(storedTab(null), 'all');
  assert.equal(storedTab('trade'), 'all');
});
