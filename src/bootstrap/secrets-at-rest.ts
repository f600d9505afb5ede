import type { Config } from '../config.js';
import { totpSealContext } from '../accounts/users.js';
import { inTransaction, type Db } from '../platform/db/database.js';
import type { Logger } from '../platform/logger.js';
import { loadSealer, SEALED_PREFIX, Sealer, SealingKeyError, settingSealContext } from '../platform/sealing.js';
import { SIGNING_KEY_SETTING } from '../../oauth/keys.js';
import { SECRET_KEY_SETTING } from '../webhooks/secret-box.js';

/** A known value sealed at first start: a wrong key is noticed at start, before anything is read. */
const CHECK_SETTING = 'sealing.check';
const CHECK_TEXT = 'rcs sealing key check';
/** Settings rows that hold key material. */
const SEALED_SETTINGS = [SIGNING_KEY_SETTING, SECRET_KEY_SETTING];

/**
 * Start-up step after the migrations: loads the sealing key, refuses to go on when it is missing
 * or is not the key the database was sealed with, and seals the clear values a database from
 * before sealing holds (TOTP secrets, the OAuth signing key, the webhook secrets' key). This is
 * start-up code rather than a migration because migrations run inside openDatabase, where the key
 * — deliberately kept out of the database — is not known (docs/decisions.md "Sealing at start").
 */
export async function openSecretsAtRest(db: Db, config: Config, logger: Logger): Promise<Sealer> {
  const check = await db.selectFrom('settings').select('value').where('key', '=', CHECK_SETTING).executeTakeFirst();
  const sealedUser = await db.selectFrom('users').select(['id', 'totp_secret']).where('totp_secret', 'like', `${SEALED_PREFIX}%`).limit(1).executeTakeFirst();
  const sealedSetting = await db.selectFrom('settings').select(['key', 'value']).where('key', 'in', SEALED_SETTINGS).where('value', 'like', `${SEALED_PREFIX}%`).limit(1).executeTakeFirst();
  const { sealer, created, tightened } = loadSealer({
    envKey: config.sealingKey,
    dataDir: config.dataDir,
    ephemeral: config.databaseFile === ':memory:',
    hasSealedData: check !== undefined || sealedUser !== undefined || sealedSetting !== undefined,
  });
  try {
    if (check) sealer.open(check.value, settingSealContext(CHECK_SETTING));
    else if (sealedUser) sealer.open(sealedUser.totp_secret, totpSealContext(sealedUser.id));
    else if (sealedSetting) sealer.open(sealedSetting.value, settingSealContext(sealedSetting.key));
  } catch (err) {
    if (!(err instanceof SealingKeyError)) throw err;
    throw new SealingKeyError(
      `The sealing key from ${sealer.source} is not the key this database was sealed with. ` +
        'Set SEALING_KEY (or restore DATA_DIR/sealing.key) to the key from your backup of this database; see docs/storage.md "Sealing key".',
    );
  }

  const sealed = await inTransaction(db, async (tx) => {
    let users = 0;
    const clearUsers = await tx.selectFrom('users').select(['id', 'totp_secret']).where('totp_secret', 'not like', `${SEALED_PREFIX}%`).execute();
    for (const u of clearUsers) {
      await tx.updateTable('users').set({ totp_secret: sealer.seal(u.totp_secret, totpSealContext(u.id)) }).where('id', '=', u.id).where('totp_secret', '=', u.totp_secret).execute();
      users++;
    }
    const settings: string[] = [];
    const clearSettings = await tx.selectFrom('settings').select(['key', 'value']).where('key', 'in', SEALED_SETTINGS).where('value', 'not like', `${SEALED_PREFIX}%`).execute();
    for (const s of clearSettings) {
      await tx.updateTable('settings').set({ value: sealer.seal(s.value, settingSealContext(s.key)) }).where('key', '=', s.key).execute();
      settings.push(s.key);
    }
    if (!check) {
      await tx
        .insertInto('settings')
        .values({ key: CHECK_SETTING, value: sealer.seal(CHECK_TEXT, settingSealContext(CHECK_SETTING)) })
        .onConflict((oc) => oc.column('key').doNothing())
        .execute();
    }
    return { users, settings };
  });
  if (created) logger.info({ file: created }, 'sealing key created: back it up together with the database (docs/storage.md)');
  if (tightened) logger.warn(tightened, 'sealing key file was readable by others: mode tightened');
  if (sealed.users > 0 || sealed.settings.length > 0) {
    logger.info({ totpSecrets: sealed.users, settings: sealed.settings }, 'sealed secrets that were stored in the clear');
  }
  return sealer;
}
