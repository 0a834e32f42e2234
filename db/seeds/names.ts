// Word lists for the demo seed (demo.ts and its modules). Plain data, no logic.

/** Given names, Latin script: mostly Arabic and South-Asian, as on a Gulf delivery fleet. */
export const FIRST_NAMES: readonly string[] = [
  'Mohammed', 'Ahmed', 'Ali', 'Omar', 'Khalid', 'Yousef', 'Hassan', 'Hussein', 'Ibrahim', 'Abdullah',
  'Mustafa', 'Tariq', 'Faisal', 'Saeed', 'Hamza', 'Bilal', 'Karim', 'Nasser', 'Sami', 'Waleed',
  'Rashid', 'Salman', 'Majid', 'Adel', 'Ziad', 'Fahad', 'Mahmoud', 'Amr', 'Sherif', 'Youssef',
  'Imran', 'Asif', 'Usman', 'Rizwan', 'Shahid', 'Zubair', 'Arif', 'Naveed', 'Kamran', 'Junaid',
  'Rahul', 'Arjun', 'Vikram', 'Suresh', 'Ramesh', 'Anil', 'Sanjay', 'Rajesh', 'Deepak', 'Manoj',
  'Abdul', 'Rafiq', 'Shakil', 'Jahid', 'Rubel', 'Sabbir', 'Tanvir', 'Nazmul', 'Faruk', 'Mizanur',
  'Prakash', 'Bikash', 'Santosh', 'Dinesh', 'Nabin', 'Kiran', 'Joseph', 'Thomas', 'Jomon', 'Biju',
  'Aisha', 'Fatima', 'Mariam', 'Noura', 'Layla', 'Huda', 'Sara', 'Reem', 'Priya', 'Anjali',
];

/** Family names, Latin script. One carries an apostrophe on purpose. */
export const LAST_NAMES: readonly string[] = [
  'Al Mansoori', 'Al Hashimi', 'Al Otaibi', 'Al Qahtani', 'Al Shamsi', 'Al Harbi', 'Al Zaabi', 'Al Mutairi',
  'Haddad', 'Khoury', 'Nasser', 'Saleh', 'Hamdan', 'Darwish', 'Abdelrahman', 'El Sayed', 'Farouk', 'Mansour',
  'Khan', 'Hussain', 'Qureshi', 'Malik', 'Chaudhry', 'Butt', 'Sheikh', 'Siddiqui', 'Raza', 'Akhtar',
  'Sharma', 'Verma', 'Nair', 'Pillai', 'Menon', 'Kumar', 'Singh', 'Reddy', 'Iyer', 'Patel',
  'Rahman', 'Hossain', 'Islam', 'Uddin', 'Miah', 'Chowdhury', 'Alam', 'Karim', 'Sarkar', 'Ahmed',
  'Thapa', 'Gurung', 'Shrestha', 'Tamang', 'Rai', 'Magar', "D'Souza", 'Fernandes', 'Mathew', 'Varghese',
];

/** A few riders are registered with their names in Arabic script. */
export const ARABIC_FIRST_NAMES: readonly string[] = [
  'محمد', 'أحمد', 'علي', 'عمر', 'خالد', 'يوسف', 'حسن', 'إبراهيم', 'عبدالله', 'فيصل', 'سعيد', 'ناصر',
];

export const ARABIC_LAST_NAMES: readonly string[] = [
  'المنصوري', 'الهاشمي', 'العتيبي', 'القحطاني', 'الشامسي', 'الحربي', 'الزعابي', 'المطيري', 'حداد', 'صالح',
];

/** Free-text remarks a patroller types in a TEXT question. Some carry quotes, a newline, a backslash or Arabic. */
export const REMARKS: readonly string[] = [
  'All good',
  'No issues found',
  'Box slightly scratched on the left side',
  'Helmet visor cracked, advised exchange',
  'Rider said "helmet is at home"',
  'Uniform faded but acceptable',
  'Tyre pressure low\nadvised to refill at the next station',
  'Sticker code A\\7 partly torn',
  'Rider was polite and cooperative',
  'Phone holder loose; tightened on site',
  'لا توجد ملاحظات',
  'الصندوق نظيف',
  'Power bank missing, rider says it is charging',
  'Checked at the restaurant pick-up point',
];

/** Notes written when an ID check fails. */
export const FAKE_ID_NOTES: readonly string[] = [
  'ID photo does not match the rider',
  'Expired ID card',
  'Name on the ID differs from the app profile',
  'Rider could not present an ID',
  'ID card looks altered: edges re-laminated',
  'Rider is using someone else\'s account ("sub-rider")',
  'Emirates ID number does not match records\nescalated to the 3PL supervisor',
  'Photocopy shown instead of the original card',
];
