import { type ChangeEvent, useId, useState } from 'react';
import { type DraftPicture, MAX_PICTURES, newPictureId } from '../api/license-draft';

const ACCEPT = 'image/jpeg,image/png,image/webp';

function PictureItem({
  picture,
  index,
  last,
  onMove,
  onRemove,
}: {
  picture: DraftPicture;
  index: number;
  last: boolean;
  onMove: (by: -1 | 1) => void;
  onRemove: () => void;
}) {
  return (
    <li>
      <img src={picture.url} alt={`${index + 1}枚目：${picture.name}`} />
      <span className="picture-name">
        {index + 1}. {picture.name}
        {picture.kind === 'new' ? '（新規）' : ''}
      </span>
      <span className="picture-actions">
        <button
          type="button"
          className="button small"
          onClick={() => onMove(-1)}
          disabled={index === 0}
          aria-label={`${index + 1}枚目を前へ`}
        >
          ↑
        </button>
        <button
          type="button"
          className="button small"
          onClick={() => onMove(1)}
          disabled={last}
          aria-label={`${index + 1}枚目を後ろへ`}
        >
          ↓
        </button>
        <button type="button" className="button small secondary" onClick={onRemove} aria-label={`${index + 1}枚目を削除`}>
          削除
        </button>
      </span>
    </li>
  );
}

/**
 * Pictures of the licence: add (JPEG/PNG/WebP, 5 MB each, 10 in all), remove and reorder. New pictures
 * are added at the end and move freely among the stored ones; the order shown is the order saved.
 */
export function PictureEditor({
  pictures,
  message,
  onChange,
}: {
  pictures: DraftPicture[];
  message?: string;
  onChange: (pictures: DraftPicture[]) => void;
}) {
  const id = useId();
  const [refused, setRefused] = useState('');
  const add = (event: ChangeEvent<HTMLInputElement>) => {
    const files = Array.from(event.currentTarget.files ?? []);
    event.currentTarget.value = '';
    const room = MAX_PICTURES - pictures.length;
    const added: DraftPicture[] = files
      .slice(0, room)
      .map((file) => ({ kind: 'new', id: newPictureId(), file, url: URL.createObjectURL(file), name: file.name }));
    const left = files.slice(room).map((file) => file.name);
    // Never a silent drop: say which files did not fit.
    setRefused(left.length ? `画像は${MAX_PICTURES}枚までです。次の${left.length}枚は追加していません：${left.join('、')}` : '');
    onChange([...pictures, ...added]);
  };
  const move = (index: number, by: -1 | 1) => {
    const target = index + by;
    const a = pictures[index];
    const b = pictures[target];
    if (!a || !b) return;
    const next = [...pictures];
    next[index] = b;
    next[target] = a;
    onChange(next);
  };
  const remove = (index: number) => {
    setRefused('');
    const picture = pictures[index];
    if (picture?.kind === 'new') URL.revokeObjectURL(picture.url);
    onChange(pictures.filter((_, i) => i !== index));
  };
  return (
    <fieldset className="field pictures">
      <legend className="field-label">
        画像（{pictures.length} / {MAX_PICTURES}枚）
      </legend>
      <p className="small">
        JPEG・PNG・WebP、1枚5MBまで。位置情報などの撮影データは保存時に取り除かれます。追加した画像は最後に並びます。↑↓で並べた順に保存され、1枚目が一覧に表示されます。
      </p>
      {pictures.length ? (
        <ol className="picture-list">
          {pictures.map((picture, index) => (
            <PictureItem
              key={picture.url}
              picture={picture}
              index={index}
              last={index === pictures.length - 1}
              onMove={(by) => move(index, by)}
              onRemove={() => remove(index)}
            />
          ))}
        </ol>
      ) : (
        <p>画像はまだありません。</p>
      )}
      {pictures.length < MAX_PICTURES ? (
        <div>
          <label htmlFor={id} className="button">
            画像を追加する
          </label>
          <input id={id} className="file-input" type="file" accept={ACCEPT} multiple onChange={add} />
        </div>
      ) : null}
      {message || refused ? (
        <p className="field-message" role="alert">
          {[message, refused].filter(Boolean).join(' ')}
        </p>
      ) : null}
    </fieldset>
  );
}
