/** For a konbini payment: which paper proves the payment, and what the shop's receipt is. */
export function KonbiniNote() {
  return (
    <p className="receipt-dialog-konbini">
      コンビニ払いでは、コンビニ店舗でお受け取りになった<strong>払込票控え（受領証）</strong>
      がお支払いの証明になります。当店の領収書はご希望の方に発行するもので、PDF にもその旨を記載します。
    </p>
  );
}
