/** The values the examples of the three APIs share: one morning of one deposit. */
export const depositId = 'dep_01M812W7SXHYZAEH7814YWVTV8';
export const at = (time: string) => `2026-11-22T07:${time}Z`;
export const transferReference = 'TRF01M812WC1HP7KNPHW3G19947XC';
export const requestId = '9b2720b0-da36-441e-bcb7-84d7d747db64';
export const otp = {
  id: 'otp',
  index: 0,
  query: 'Enter the one-time password sent to your registered mobile number',
  answer: '',
};
