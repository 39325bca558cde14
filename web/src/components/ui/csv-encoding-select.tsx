/** The CSV downloads' choice of encoding: UTF-8 with a BOM, or Shift_JIS (CP932) for older Excel. */
export type CsvEncoding = 'utf-8' | 'shift_jis';

export function CsvEncodingSelect({
  id,
  value,
  onChange,
  label = '文字コード',
  inline = false,
}: {
  id: string;
  value: CsvEncoding;
  onChange: (encoding: CsvEncoding) => void;
  label?: string;
  /** Label and choice on one line, beside a download button. */
  inline?: boolean;
}) {
  return (
    <div className={inline ? 'field inline' : 'field'}>
      {inline ? (
        <label htmlFor={id}>{label}</label>
      ) : (
        <div className="field-label">
          <label htmlFor={id}>{label}</label>
        </div>
      )}
      <select id={id} value={value} onChange={(event) => onChange(event.currentTarget.value as CsvEncoding)}>
        <option value="utf-8">UTF-8（BOM付き）</option>
        <option value="shift_jis">Shift_JIS（古いExcel向け）</option>
      </select>
    </div>
  );
}
