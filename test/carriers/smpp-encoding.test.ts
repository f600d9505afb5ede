import { describe, expect, it } from 'vitest';
import { concatUdh, decodeGsm7, encodeGsm7, encodeUcs2, sourceAddress, submitBodies } from '../../src/carriers/smpp/encoding.js';
import { parseReceipt, receiptIdVariants } from '../../src/carriers/smpp/receipt.js';
import { GSM_BASIC_CHARACTERS, GSM_EXTENSION_CHARACTERS, analyzeSms, splitSms } from '../../src/sms/index.js';

describe('GSM-7 default alphabet, one octet per septet', () => {
  it('encodes the basic table to its septet values (ESC position skipped)', () => {
    expect([...encodeGsm7('@£$')]).toEqual([0x00, 0x01, 0x02]);
    expect([...encodeGsm7('ÆæßÉ')]).toEqual([0x1c, 0x1d, 0x1e, 0x1f]);
    expect([...encodeGsm7('Hello')]).toEqual([0x48, 0x65, 0x6c, 0x6c, 0x6f]);
    expect([...encodeGsm7('¡¿äà')]).toEqual([0x40, 0x60, 0x7b, 0x7f]);
    expect([...encodeGsm7('Δ_')]).toEqual([0x10, 0x11]);
  });

  it('escapes extension characters', () => {
    expect([...encodeGsm7('€[]{}\\^~|\f')]).toEqual([0x1b, 0x65, 0x1b, 0x3c, 0x1b, 0x3e, 0x1b, 0x28, 0x1b, 0x29, 0x1b, 0x2f, 0x1b, 0x14, 0x1b, 0x3d, 0x1b, 0x40, 0x1b, 0x0a]);
  });

  it('round-trips every GSM character, and the septet count matches src/sms', () => {
    const all = GSM_BASIC_CHARACTERS + GSM_EXTENSION_CHARACTERS;
    expect(decodeGsm7(encodeGsm7(all))).toBe(all);
    expect(encodeGsm7(all).length).toBe(analyzeSms(all).units);
  });
});

describe('submit_sm bodies', () => {
  it('a single GSM-7 part: data_coding 0, no UDH', () => {
    const [b] = submitBodies(['Hi'], 'GSM-7', 9);
    expect(b).toEqual({ index: 0, dataCoding: 0, esmClass: 0, shortMessage: Buffer.from([0x48, 0x69]) });
  });

  it('concatenated UCS-2 parts: data_coding 8, UDH 05 00 03 ref total seq, esm_class 0x40, the parts of splitSms', () => {
    const text = 'Ж'.repeat(150);
    const parts = splitSms(text).map((p) => p.text);
    expect(parts.map((p) => p.length)).toEqual([67, 67, 16]);
    const bodies = submitBodies(parts, 'Unicode', 0xab);
    expect(bodies).toHaveLength(3);
    bodies.forEach((b, i) => {
      expect(b.dataCoding).toBe(8);
      expect(b.esmClass).toBe(0x40);
      expect([...b.shortMessage.subarray(0, 6)]).toEqual([0x05, 0x00, 0x03, 0xab, 3, i + 1]);
      expect(b.shortMessage.subarray(6)).toEqual(encodeUcs2(parts[i]!));
      expect(b.shortMessage.length).toBeLessThanOrEqual(140);
    });
    expect([...encodeUcs2('A😀')]).toEqual([0x00, 0x41, 0xd8, 0x3d, 0xde, 0x00]);
    // Code units as they are: a lone surrogate (a part boundary may split a pair) is not replaced.
    expect([...encodeUcs2('\ud83dx\ude00')]).toEqual([0xd8, 0x3d, 0x00, 0x78, 0xde, 0x00]);
    const [first] = submitBodies(['Ж\ud83d', 'x'], 'Unicode', 1);
    expect([...first!.shortMessage]).toEqual([5, 0, 3, 1, 2, 1, 0x04, 0x16, 0xd8, 0x3d]);
    expect([...concatUdh(300, 2, 1)]).toEqual([5, 0, 3, 300 & 0xff, 2, 1]);
  });

  it('concatenated GSM-7 parts fit 153 septets after the UDH', () => {
    const text = 'x'.repeat(200) + '€';
    const parts = splitSms(text).map((p) => p.text);
    const bodies = submitBodies(parts, 'GSM-7', 1);
    expect(bodies.map((b) => b.shortMessage.length - 6)).toEqual(splitSms(text).map((p) => p.units));
    expect(Math.max(...bodies.map((b) => b.shortMessage.length - 6))).toBeLessThanOrEqual(153);
  });

  it('source addresses: alphanumeric, international, short code', () => {
    expect(sourceAddress('ACME Shop')).toEqual({ addr: 'ACME Shop', ton: 5, npi: 0 });
    expect(sourceAddress('+4915112345678')).toEqual({ addr: '4915112345678', ton: 1, npi: 1 });
    expect(sourceAddress('12345')).toEqual({ addr: '12345', ton: 3, npi: 0 });
  });
});

describe('delivery receipts', () => {
  it('parses the text form', () => {
    expect(parseReceipt({ text: 'id:1f40 sub:001 dlvrd:001 submit date:2405011200 done date:2405011201 stat:DELIVRD err:000 text:Hello stat:FAKE' })).toEqual({ id: '1f40', stat: 'DELIVRD', err: null });
    expect(parseReceipt({ text: 'id:77 sub:001 dlvrd:000 submit date:2405011200 done date:2405011201 stat:UNDELIV err:034 Text:x' })).toEqual({ id: '77', stat: 'UNDELIV', err: '034' });
  });

  it('prefers the TLVs', () => {
    expect(parseReceipt({ text: '', receiptedMessageId: 'abc', messageState: 8 })).toEqual({ id: 'abc', stat: 'REJECTD', err: null });
    expect(parseReceipt({ text: 'no receipt here' })).toBeNull();
  });

  it('matches ids printed in hex or decimal', () => {
    expect(receiptIdVariants('8000')).toContain('1f40');
    expect(receiptIdVariants('1f40')).toContain('8000');
    expect(receiptIdVariants('00123')).toContain('123');
  });
});
