// The pure threading helpers: base subjects with reply/forward prefixes of many languages, Message-ID links, and
// participants read from the stored address JSON.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  linksOf,
  MAX_PARENT_IDS,
  mergeParticipants,
  messageIdsIn,
  parseSubject,
  participantList,
  participantsOf,
  snippetOf,
} from '../../src/mail/threads.ts';

test('reply and forward prefixes are stripped, repeated and localized ones too', () => {
  const cases: Array<[string, string]> = [
    ['Re: Hello', 'Hello'],
    ['RE: RE: RE: Hello', 'Hello'],
    ['Re: Fwd: Re: Hello', 'Hello'],
    ['Fw: Hello', 'Hello'],
    ['Re[2]: Hello', 'Hello'],
    ['Re(3): Hello', 'Hello'],
    ['Re^2: Hello', 'Hello'],
    ['RE : Bonjour', 'Bonjour'],
    ['TR: Bonjour', 'Bonjour'],
    ['Réf. : Bonjour', 'Bonjour'],
    ['AW: WG: Termin', 'Termin'],
    ['SV: Re: VS: Hej', 'Hej'],
    ['Antw: Vraag', 'Vraag'],
    ['RV: Pedido', 'Pedido'],
    ['R: Ordine', 'Ordine'],
    ['Rif: Ordine', 'Ordine'],
    ['RES: Pedido', 'Pedido'],
    ['Enc: Pedido', 'Pedido'],
    ['Odp: Zamówienie', 'Zamówienie'],
    ['PD: Zamówienie', 'Zamówienie'],
    ['Vá: Rendelés', 'Rendelés'],
    ['YNT: Sipariş', 'Sipariş'],
    ['İLT: Sipariş', 'Sipariş'],
    ['ΑΠ: Παραγγελία', 'Παραγγελία'],
    ['答复: 会议', '会议'],
    ['回复：会议', '会议'],
    ['转发: 会议', '会议'],
    ['回覆: 會議', '會議'],
    ['轉寄: 會議', '會議'],
    ['返信: 会議', '会議'],
    ['転送: 会議', '会議'],
    ['회신: 회의', '회의'],
    ['Ответ: Заказ', 'Заказ'],
    ['Отв: Заказ', 'Заказ'],
    ['[Fwd: Hello]', 'Hello'],
    ['Hello (fwd)', 'Hello'],
    ['[dev] Re: patch', '[dev] patch'],
    ['Re: [dev] patch', '[dev] patch'],
    ['[dev] Re: [dev] patch', '[dev] patch'],
    ['  Re:   Hello   world ', 'Hello world'],
  ];
  for (const [subject, base] of cases) {
    const p = parseSubject(subject);
    assert.equal(p.base, base, subject);
    assert.equal(p.reply, true, subject);
    assert.equal(p.key, base.toLowerCase(), subject);
  }
});

test('subjects without a prefix are not replies, and look-alike words are not prefixes', () => {
  for (const subject of ['Your code', 'Rest: of the day', 'Result: passed', 'Reminder', 'Iris: hello', '[dev] patch', 'Re', ''])
    assert.equal(parseSubject(subject).reply, false, subject);
  assert.equal(parseSubject('Rest: of the day').base, 'Rest: of the day');
  assert.equal(parseSubject('Re:').key, '', 'a bare prefix has no base to join by');
});

test('a hostile subject of many prefixes ends quickly and the key is bounded', () => {
  const p = parseSubject(`${'Re: '.repeat(15_000)}x`);
  assert.equal(p.base, 'x');
  assert.equal(parseSubject('y'.repeat(5000)).key.length, 300);
});

test('Message-ID links: brackets removed, In-Reply-To first, References nearest first, no repeats, bounded', () => {
  assert.deepEqual(messageIdsIn(' <a@b> '), ['a@b']);
  assert.deepEqual(messageIdsIn('<a@b> (comment) <c@d>'), ['a@b', 'c@d']);
  assert.deepEqual(messageIdsIn('bare@id'), ['bare@id']);
  assert.deepEqual(messageIdsIn('not an id'), []);
  assert.deepEqual(messageIdsIn(null), []);
  assert.deepEqual(linksOf('<own@x>', '<p@x>', ['<r1@x>', '<r2@x> <r3@x>', '<p@x>', '<own@x>']), {
    own: 'own@x',
    parents: ['p@x', 'r3@x', 'r2@x', 'r1@x'],
  });
  assert.deepEqual(linksOf(null, null, []), { own: null, parents: [] });
  const many = Array.from({ length: 500 }, (_, i) => `<r${i}@x>`);
  const l = linksOf('<own@x>', null, many);
  assert.equal(l.parents.length, MAX_PARENT_IDS);
  assert.equal(l.parents[0], 'r499@x');
});

test('participants: sender, To, Cc lower-cased and unique, bounded, never fooled by a name', () => {
  const to = JSON.stringify([
    { name: 'Evil "address":"forged@x"', address: 'To@Example.com' },
    { name: '', address: 'sender@x.test' },
  ]);
  const cc = JSON.stringify([{ name: '', address: 'cc@example.com' }]);
  assert.deepEqual(participantsOf('Sender@X.test', to, cc), ['sender@x.test', 'to@example.com', 'cc@example.com']);
  const lots = JSON.stringify(Array.from({ length: 5000 }, (_, i) => ({ name: '', address: `u${i}@x` })));
  assert.equal(participantsOf(null, lots, '[]').length, 50);
  assert.deepEqual(mergeParticipants(['a'], ['b', 'a', 'c'], 2), ['a', 'b']);
  assert.deepEqual(participantList('["a",1,"b"]'), ['a', 'b']);
  assert.deepEqual(participantList('not json'), []);
  assert.deepEqual(participantList('{}'), []);
  const same = ['a'];
  assert.equal(mergeParticipants(same, ['a']), same);
});

test('snippets drop quoted lines and are short', () => {
  assert.equal(snippetOf('Thanks!\n\n> old text\n> more'), 'Thanks!');
  assert.equal(snippetOf(null), '');
  const long = snippetOf('word '.repeat(100));
  assert.ok(long.length <= 160 && long.endsWith('…'));
});
