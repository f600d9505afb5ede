import { describe, expect, it } from 'vitest';
import { classifyConsent } from '../../../src/inbound/consent-words.js';

const read = (text: string, trigger: string | null = 'STOP') => classifyConsent(text, trigger);

/**
 * Issue #42: replies a person would read as "stop". Each either opts out at once (clear) or pauses marketing and waits
 * for a person (review); none is an ordinary reply.
 */
describe('requests to stop as people write them (issue #42)', () => {
  it('the thirteen measured replies: twelve clear requests opt out', () => {
    for (const s of [
      "STOP. Don't text me again",
      "Stop texting me, I'm not interested",
      'wrong number, stop',
      'remove me from your list',
      "don't text me anymore",
      'opt me out',
      'Leave me alone',
      'Please take me off your list',
      'No more messages please',
      'unsubscribe me from this',
      'Do not contact me again',
      'STOP STOP STOP who gave you my number',
    ]) {
      expect(read(s)?.kind, s).toBe('opt_out');
    }
  });

  it('clear requests in every language the rules know', () => {
    for (const s of [
      'Bitte keine Nachrichten mehr schicken',
      'Lassen Sie mich in Ruhe',
      "Ne m'envoyez plus de messages",
      'Laissez-moi tranquille',
      'No me manden más mensajes',
      'Déjenme en paz',
      'Non scrivetemi più',
      'Lasciatemi in pace',
      'Stuur me geen berichten meer',
      'Laat me met rust',
      'Fjern mig fra listen',
      'Ta bort mig från listan',
      'Fjern meg fra listen',
      'Poista minut listalta',
      'Usuń mnie z listy',
      'Não me enviem mais mensagens',
      'Me tire da lista',
      'Arrêtez, je ne veux plus rien',
      'Basta, grazie',
    ]) {
      expect(read(s)?.kind, s).toBe('opt_out');
    }
  });

  it('what might be a request goes to review, with why', () => {
    expect(read('Stop? I want these messages')).toEqual({ kind: 'review', word: 'STOP', reason: 'contradicted' });
    expect(read('Stopp! Ich will mehr Nachrichten')).toEqual({ kind: 'review', word: 'STOPP', reason: 'contradicted' });
    expect(read('wrong number')).toEqual({ kind: 'review', word: 'WRONG NUMBER', reason: 'complaint' });
    expect(read('this is spam')).toMatchObject({ kind: 'review', reason: 'complaint' });
    expect(read('Who is this?')).toMatchObject({ kind: 'review', reason: 'complaint' });
    expect(read('Not interested')).toMatchObject({ kind: 'review', reason: 'complaint' });
    expect(read('Falsche Nummer')).toMatchObject({ kind: 'review', reason: 'complaint' });
    expect(read('I think I should stop getting these soon maybe')).toMatchObject({ kind: 'review', reason: 'stop_word_inside' });
    expect(read("please don't unsubscribe me")).toMatchObject({ kind: 'review', reason: 'contradicted' });
  });

  it("the sender's trigger counts like STOP at either end", () => {
    expect(read('HALT, wrong person', 'HALT')?.kind).toBe('opt_out');
    expect(read('I said halt', 'HALT')?.kind).toBe('opt_out');
    expect(read('I said halt', 'STOP')?.kind).toBeUndefined();
  });

  it('ordinary replies stay ordinary', () => {
    for (const s of ['Thanks, see you Tuesday', 'What time do you open?', 'Yes please book it', 'The last one was great', 'Can I change my order?', 'I will be there at the end of the day']) {
      expect(read(s), s).toBeNull();
    }
  });

  it('a long message is not read by its first word alone', () => {
    const long = 'Stop the presses, this is the best deal I have seen all year and I will tell all my friends about it today';
    expect(read(long)?.kind).toBe('review');
  });
});
