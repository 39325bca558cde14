// The licences module's public surface: what other modules may use.
export { License } from './entities/license.entity.ts';
export const LICENSE_NOT_FOUND = 'エラー: ライセンスが見つかりませんでした。';
