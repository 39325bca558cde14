/**
 * WebAuthn in the browser with the platform's own JSON helpers (Chromium 129+, Safari 18+, Firefox
 * 119+): the server's options (better-auth's passkey plugin, @simplewebauthn/server) go in as JSON,
 * the credential comes back as JSON.
 */
type JsonCredential = { toJSON(): unknown };
type PkcStatics = {
  parseCreationOptionsFromJSON?: (json: unknown) => PublicKeyCredentialCreationOptions;
  parseRequestOptionsFromJSON?: (json: unknown) => PublicKeyCredentialRequestOptions;
};

const UNSUPPORTED = 'お使いのブラウザはパスキーに対応していません。最新のブラウザでお試しください。';
const CANCELLED = 'パスキーの操作が取り消されたか、時間切れになりました。もう一度お試しください。';

function statics(): PkcStatics | null {
  const pkc = (globalThis as { PublicKeyCredential?: PkcStatics }).PublicKeyCredential;
  return pkc?.parseCreationOptionsFromJSON && pkc.parseRequestOptionsFromJSON ? pkc : null;
}

export const passkeysSupported = () => statics() !== null;

export async function createPasskey(options: unknown): Promise<unknown> {
  const pkc = statics();
  if (!pkc?.parseCreationOptionsFromJSON) throw new Error(UNSUPPORTED);
  try {
    const credential = (await navigator.credentials.create({ publicKey: pkc.parseCreationOptionsFromJSON(options) })) as
      | (Credential & JsonCredential)
      | null;
    if (!credential) throw new Error(CANCELLED);
    return credential.toJSON();
  } catch (error) {
    if (error instanceof DOMException)
      throw new Error(error.name === 'InvalidStateError' ? 'この端末のパスキーはすでに登録されています。' : CANCELLED);
    throw error;
  }
}

export async function signWithPasskey(options: unknown): Promise<unknown> {
  const pkc = statics();
  if (!pkc?.parseRequestOptionsFromJSON) throw new Error(UNSUPPORTED);
  try {
    const credential = (await navigator.credentials.get({ publicKey: pkc.parseRequestOptionsFromJSON(options) })) as
      | (Credential & JsonCredential)
      | null;
    if (!credential) throw new Error(CANCELLED);
    return credential.toJSON();
  } catch (error) {
    if (error instanceof DOMException) throw new Error(CANCELLED);
    throw error;
  }
}
