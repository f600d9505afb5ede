import type { Config } from '../config.js';
import { anySealedTotpSecret, sealClearTotpSecrets, totpSealContext } from '../accounts/users.js';
import { inTransaction, type Db } from '../platform/db/database.js';
import type { Logger } from '../platform/logger.js';
import { loadSealer, SEALED_PREFIX, Sealer, SealingKeyError, settingSealContext } from '../platform/sealing.js';
import { readSetting, readSettings, replaceSetting, SEALED_SETTINGS, settleSetting, type SettingKey } from '../platform/settings.js';

/** A known value sealed at first start: a wrong key is noticed at start, before anything is read. */
const CHECK_SETTING: SettingKey = 'sealing.check';
const CHECK_TEXT = 'rcs sealing key check';

/**
 * Start-up step after the migrations: loads the sealing key, refuses to go on when it is missing
 * or is not the key the database was sealed with, and seals the clear values a database from
 * before sealing holds (TOTP secrets, the OAuth signing key, the webhook secrets' key). This is
 * start-up code rather than a migration because migrations run inside openDatabase, where the key
 * — deliberately kept out of the database — is not known (docs/decisions.md "Sealing at start").
 */
export async function openSecretsAtRest(db: Db, config: Config, logger: Logger): Promise<Sealer> {
  const checkValue = await readSetting(db, CHECK_SETTING);
  const check = checkValue === undefined ? undefined : { value: checkValue };
  const sealedUser = await anySealedTotpSecret(db, SEALED_PREFIX);
  const sealedSetting = (await readSettings(db, SEALED_SETTINGS)).find((s) => s.value.startsWith(SEALED_PREFIX));
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
    const users = await sealClearTotpSecrets(tx, sealer, SEALED_PREFIX);
    const settings: string[] = [];
    const clearSettings = (await readSettings(tx, SEALED_SETTINGS)).filter((s) => !s.value.startsWith(SEALED_PREFIX));
    for (const s of clearSettings) {
      await replaceSetting(tx, s.key, s.value, sealer.seal(s.value, settingSealContext(s.key)));
      settings.push(s.key);
    }
    if (!check) await settleSetting(tx, CHECK_SETTING, sealer.seal(CHECK_TEXT, settingSealContext(CHECK_SETTING)));
    return { users, settings };
  });
  if (created) logger.info({ file: created }, 'sealing key created: back it up together with the database (docs/storage.md)');
  if (tightened) logger.warn(tightened, 'sealing key file was readable by others: mode tightened');
  if (sealed.users > 0 || sealed.settings.length > 0) {
    logger.info({ totpSecrets: sealed.users, settings: sealed.settings }, 'sealed secrets that were stored in the clear');
  }
  return sealer;
}
