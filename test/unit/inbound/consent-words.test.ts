import { describe, expect, it } from 'vitest';
import { checkSenderWords, classifyConsent, CONSENT_LANGUAGES, readSenderWords, FILLER_WORDS, foldText, HELP_WORDS, OPT_IN_WORDS, OPT_OUT_WORDS, SENTENCE_MAX_WORDS } from '../../../src/inbound/consent-words.js';

const kind = (text: string, trigger: string | null = 'STOP') => classifyConsent(text, trigger)?.kind ?? null;

describe('consent words (issue #28)', () => {
  it('folds case, accents, punctuation, quotes and blanks', () => {
    expect(foldText('  “Arrêt!” ')).toBe('ARRET');
    expect(foldText('opt-out.')).toBe('OPT OUT');
    expect(foldText("Don't stop")).toBe('DONT STOP');
    expect(foldText('Hjælp')).toBe('HJAELP');
    expect(foldText('HJÄLP')).toBe('HJALP');
    expect(foldText('Proszę')).toBe('PROSZE');
    expect(foldText('Straße')).toBe('STRASSE');
  });

  it('the US set opts out, each as the whole message, whatever the case and punctuation', () => {
    for (const w of ['STOP', 'stopall', 'Quit', 'END', 'revoke', 'opt out', 'Opt-Out', 'OPTOUT', 'cancel', 'Unsubscribe', ' Stop. ', 'STOP!!!', '"stop"', 'stop all']) {
      expect(kind(w), w).toBe('opt_out');
    }
  });

  it('each language’s opt-out words opt out (accents folded), as written by a person', () => {
    const written = [
      'Stopp', 'ABMELDEN', 'abbestellen', 'Ende', 'aufhören', 'kündigen', // de
      'Arrêt', 'ARRET', 'arrêter', 'Désinscrire', 'désabonner', 'désinscription', // fr
      'Baja', 'cancelar', 'PARAR', 'dar de baja', 'detener', // es
      'Annulla', 'disiscrivi', 'basta', 'cancella', // it
      'afmelden', 'uitschrijven', 'stoppen', // nl
      'afmeld', 'frameld', // da
      'Avsluta', 'stoppa', 'avanmäl', // sv
      'avslutt', 'meld av', 'avmeld', // no
      'lopeta', 'peruuta', // fi
      'rezygnuj', 'wypisz', 'koniec', 'anuluj', // pl
      'sair', 'pare', 'descadastrar', // pt
    ];
    for (const w of written) expect(kind(w), w).toBe('opt_out');
    // Every listed word, in every language.
    for (const [lang, l] of Object.entries(CONSENT_LANGUAGES)) {
      for (const w of [...l.optOut, ...l.sentence]) expect(kind(w), `${lang} ${w}`).toBe('opt_out');
      for (const w of l.optIn) expect(kind(w), `${lang} ${w}`).toBe('opt_in');
      for (const w of l.help) expect(kind(w), `${lang} ${w}`).toBe('help');
    }
  });

  it('the sender’s own trigger opts out; another sender’s does not', () => {
    expect(kind('halt', 'HALT')).toBe('opt_out');
    expect(kind('Halt!', 'HALT')).toBe('opt_out');
    expect(kind('halt', 'STOP')).toBeNull();
    expect(kind('halt please', 'HALT')).toBe('opt_out');
  });

  it('short sentences that clearly ask to stop opt out', () => {
    for (const s of ['please stop texting me', 'Stop bitte', 'stop please', 'unsubscribe me', 'arrêtez svp', 'STOP!!! thanks', 'por favor baja', 'stop sending me messages', 'Arrêtez, s’il vous plaît', 'ik wil afmelden', 'I want to unsubscribe', 'Stopp bitte keine Nachrichten mehr']) {
      expect(kind(s), s).toBe('opt_out');
    }
  });

  it('does not guess: other meanings and anything outside the lists are ordinary replies', () => {
    for (const s of ['cancel my order please', 'The end', 'Hello', 'Yes', 'halt', '', '!!!', 'See you at the end of the week', 'Can you send me the address?']) {
      expect(kind(s), s).toBeNull();
    }
  });

  it('negated, asked-about or place-like stop words go to a person (review), never straight out and never ignored', () => {
    for (const s of [
      "don't stop",
      'please do not stop sending these',
      'stop by tomorrow at 5',
      'Can I stop by the shop?',
      'Bitte nicht abmelden',
      'Stop? I want these messages',
      'Stopp! Ich will mehr Nachrichten',
      'What happens if I text STOP?',
      "Please don't remove me from the list",
      'I had to stop at the bus stop and wait for an hour and then another hour before the bus came',
    ]) {
      expect(kind(s), s).toBe('review');
    }
  });

  it('sentences are bounded by SENTENCE_MAX_WORDS; a longer one that ends with a stop word is a stop request too (rule 4)', () => {
    expect(kind(['stop', ...Array(SENTENCE_MAX_WORDS - 1).fill('please')].join(' '))).toBe('opt_out');
    expect(kind(['hello', ...Array(SENTENCE_MAX_WORDS).fill('please')].join(' '))).toBeNull();
    expect(kind(['please', ...Array(SENTENCE_MAX_WORDS).fill('please'), 'stop'].join(' '))).toBe('opt_out');
  });

  it('START, UNSTOP and the languages’ equivalents re-subscribe; HELP and equivalents ask for help', () => {
    for (const w of ['START', 'unstop', 'Anmelden', 'inscrire', 'alta', 'aanmelden', 'tilmeld', 'starta', 'meld på', 'aloita', 'wznów']) expect(kind(w), w).toBe('opt_in');
    for (const w of ['HELP', 'info', 'Hilfe', 'aide', 'ayuda', 'aiuto', 'hjälp', 'hjelp', 'hjælp', 'apua', 'pomoc', 'ajuda', 'hulp']) expect(kind(w), w).toBe('help');
    expect(kind('start please')).toBeNull();
    expect(kind('help me')).toBeNull();
  });

  it('no word has two roles', () => {
    const roles = [OPT_OUT_WORDS, OPT_IN_WORDS, HELP_WORDS, FILLER_WORDS];
    for (let i = 0; i < roles.length; i++) {
      for (let j = i + 1; j < roles.length; j++) {
        for (const w of roles[i]!) expect(roles[j]!.has(w), w).toBe(false);
      }
    }
    // Every listed word is written folded.
    for (const set of roles) for (const w of set) expect(foldText(w)).toBe(w);
  });
});

describe('a sender’s own words (checkSenderWords)', () => {
  it('folds, drops blanks and words already listed for the same role, and keeps the rest', () => {
    expect(checkSenderWords({ optOut: ['  Genug! ', 'stop', '', 'GENUG'], optIn: ['Wieder da'], help: ['hilfe', 'Frage?'] }, 'HALT')).toEqual({ ok: true, words: { optOut: ['GENUG'], optIn: ['WIEDER DA'], help: ['FRAGE'] } });
    // The trigger is an opt-out word already.
    expect(checkSenderWords({ optOut: ['halt'], optIn: [], help: [] }, 'HALT')).toEqual({ ok: true, words: { optOut: [], optIn: [], help: [] } });
  });

  it('refuses a word that means something else already, naming it', () => {
    const bad = (input: { optOut?: string[]; optIn?: string[]; help?: string[] }, trigger = 'STOP') => {
      const r = checkSenderWords({ optOut: [], optIn: [], help: [], ...input }, trigger);
      return r.ok ? [] : r.problems;
    };
    expect(bad({ optIn: ['halt'] }, 'HALT')[0]).toMatch(/"HALT" is already an opt-out word/);
    expect(bad({ optIn: ['stop please'] })[0]).toMatch(/already an opt-out word/);
    expect(bad({ optIn: ['stop texting me'] })[0]).toMatch(/already an opt-out word/);
    expect(bad({ help: ['Arrêt'] })[0]).toMatch(/already an opt-out word/);
    expect(bad({ optOut: ['START'] })[0]).toMatch(/already a re-subscribe word/);
    expect(bad({ optOut: ['Hilfe'] })[0]).toMatch(/already a help word/);
    expect(bad({ optOut: ['yes'], optIn: ['YES'] })[0]).toMatch(/"YES" is already an opt-out word, so it cannot be a re-subscribe word/);
    expect(bad({ optOut: ['x'.repeat(31)] })[0]).toMatch(/longer than 30/);
    expect(bad({ optOut: ['a b c d'] })[0]).toMatch(/more than 3 words/);
    expect(bad({ help: ['!!!'] })[0]).toMatch(/no letters or digits/);
    expect(bad({ optOut: Array.from({ length: 21 }, (_, i) => `W${i}`) })[0]).toMatch(/At most 20 opt-out words/);
  });

  it('the sender’s words count only as the whole message, and only for that sender', () => {
    const own = { optOut: ['GENUG'], optIn: ['WIEDER DA'], help: ['FRAGE'] };
    expect(classifyConsent('Genug!', 'STOP', own)).toEqual({ kind: 'opt_out', word: 'GENUG' });
    expect(classifyConsent('wieder da', 'STOP', own)).toEqual({ kind: 'opt_in', word: 'WIEDER DA' });
    expect(classifyConsent('Frage', 'STOP', own)).toEqual({ kind: 'help', word: 'FRAGE' });
    expect(classifyConsent('genug bitte', 'STOP', own)).toBeNull();
    expect(classifyConsent('Genug!', 'STOP')).toBeNull();
    // The lists still apply beside them.
    expect(classifyConsent('STOP', 'STOP', own)?.kind).toBe('opt_out');
  });

  it('reads what is stored defensively', () => {
    expect(readSenderWords('{}')).toEqual({ optOut: [], optIn: [], help: [] });
    expect(readSenderWords('not json')).toEqual({ optOut: [], optIn: [], help: [] });
    expect(readSenderWords('{"optOut":["A",1],"help":"x"}')).toEqual({ optOut: ['A'], optIn: [], help: [] });
  });
});
