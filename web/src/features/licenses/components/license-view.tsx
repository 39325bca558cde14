import { useState } from 'react';
import { formatPrice } from '../../../lib/format';
import { PhraseBreaks } from '../../../lib/phrase-breaks';

export interface ViewPicture {
  url: string;
  alt: string;
}

/** A licence as members see it: gallery, name, price and description. Admin previews use it too. */
export function LicenseView({
  name,
  price,
  description,
  pictures,
}: {
  name: string;
  price: number;
  description: string;
  pictures: ViewPicture[];
}) {
  const [current, setCurrent] = useState(0);
  const shown = pictures[Math.min(current, pictures.length - 1)];
  return (
    <div className="license-view">
      <div className="gallery">
        {shown ? (
          <img src={shown.url} alt={shown.alt} className="gallery-main" />
        ) : (
          <div className="gallery-empty" role="img" aria-label="画像はありません">
            画像はありません
          </div>
        )}
        {pictures.length > 1 ? (
          <ul className="gallery-thumbs" aria-label="画像一覧">
            {pictures.map((picture, index) => (
              <li key={picture.url}>
                <button
                  type="button"
                  className={index === current ? 'thumb active' : 'thumb'}
                  aria-label={`${index + 1}枚目の画像を表示`}
                  aria-pressed={index === current}
                  onClick={() => setCurrent(index)}
                >
                  <img src={picture.url} alt="" />
                </button>
              </li>
            ))}
          </ul>
        ) : null}
      </div>
      <div className="license-info">
        <h2 className="license-name phrase-name">
          <PhraseBreaks text={name} />
        </h2>
        <p className="price">{formatPrice(price)}</p>
        <div className="description">
          {description.split('\n').map((line, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: lines of one text, in order
            <p key={index}>{line}</p>
          ))}
        </div>
      </div>
    </div>
  );
}
