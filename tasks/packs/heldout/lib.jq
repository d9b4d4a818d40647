# Definitions the held-out families share.
# Definitions the families of this pack share.
# ---- dates: day numbers (1970-01-01 is 0) ----
def civil_days($y; $m; $d):
  (if $m <= 2 then $y - 1 else $y end) as $y
  | ($y / 400 | floor) as $era | ($y - $era * 400) as $yoe
  | (($m + 9) % 12) as $mp
  | (((153 * $mp + 2) / 5 | floor) + $d - 1) as $doy
  | ($yoe * 365 + ($yoe / 4 | floor) - ($yoe / 100 | floor) + $doy) as $doe
  | $era * 146097 + $doe - 719468;
def civil_date:
  (. + 719468) as $z | ($z / 146097 | floor) as $era | ($z - $era * 146097) as $doe
  | (($doe - ($doe / 1460 | floor) + ($doe / 36524 | floor) - ($doe / 146096 | floor)) / 365 | floor) as $yoe
  | ($doe - (365 * $yoe + ($yoe / 4 | floor) - ($yoe / 100 | floor))) as $doy
  | ((5 * $doy + 2) / 153 | floor) as $mp
  | ($doy - ((153 * $mp + 2) / 5 | floor) + 1) as $d
  | (if $mp < 10 then $mp + 3 else $mp - 9 end) as $m
  | "\($yoe + $era * 400 + (if $m <= 2 then 1 else 0 end) | pad(4))-\($m | pad(2))-\($d | pad(2))";
def weekday_name: ["Thursday", "Friday", "Saturday", "Sunday", "Monday", "Tuesday", "Wednesday"][. % 7];
# A day number as `March 7, 2026`.
def long_date: civil_date | "\(spoken_date), \(.[0:4])";
# A day number as `Saturday 7 March 2026`.
def weekday_date: (weekday_name) as $w | civil_date | "\($w) \(.[8:10] | tonumber) \(.[5:7] | tonumber | month_name) \(.[0:4])";
def euros: "€" + ((. / 100 | floor) | tostring) + "." + ((. % 100) | pad(2));
def local_part: ascii_downcase | gsub("[^a-z ]"; "") | gsub(" "; ".");
# ---- h1.service-reminders: a service business's database, its schema drawn per task ----
# The world (input: the object of drawn values, see the family) as tables, and its due assets.
# An asset's visits: [[day, done?], ...]; done visits count, the others do not.
def sr_last_done: [.visits[] | select(.[1]) | .[0]] | max;
def sr_is_due($c; $r): .active and (sr_last_done < $c) and (.reminder == null or .reminder < $r);
def sr_date_or_null: if . == null then null else civil_date end;
# SQL pieces.
def sr_active_sql($s):
  if $s.st_kind == 0 then "a.\($s.c_status) = 1"
  elif $s.st_kind == 1 then "a.\($s.c_status) = 'active'"
  else "a.\($s.c_status) IS NULL" end;
def sr_email_sql($s): if $s.layout then "c.\($s.c_addr)" else "p.\($s.c_email)" end;
def sr_contact_join($s):
  if $s.layout then
    " JOIN \($s.t_contacts) c ON c.\($s.c_cperson) = p.id AND "
    + (if $s.cur_kind == 0 then "c.\($s.c_flag) = 1" else "c.\($s.c_flag) IS NULL" end)
  else "" end;
def sr_last_sql($s):
  "(SELECT MAX(v.\($s.c_vdate)) FROM \($s.t_visits) v WHERE v.\($s.c_vasset) = a.id AND v.\($s.c_vout) = '\($s.outv[0])')";
def sr_query($s; $c; $r):
  "SELECT a.id, a.\($s.c_label), p.\($s.c_pname), \(sr_email_sql($s)), \(sr_last_sql($s)) AS last_done, a.\($s.c_rem) FROM \($s.t_assets) a JOIN \($s.t_people) p ON p.id = a.\($s.c_owner)\(sr_contact_join($s)) WHERE \(sr_active_sql($s)) AND \(sr_last_sql($s)) < '\($c | civil_date)' AND (a.\($s.c_rem) IS NULL OR a.\($s.c_rem) < '\($r | civil_date)') ORDER BY a.id";
# Definitions the families of this pack share.
# Days in month $m of year $y.
def h2_days($y; $m): if $m == 2 then (if ($y % 4 == 0 and ($y % 100 != 0 or $y % 400 == 0)) then 29 else 28 end)
  elif ([4, 6, 9, 11] | index([$m])) != null then 30 else 31 end;
# "YYYY-MM" and "YYYY-MM-DD".
def h2_ym($y; $m): "\($y | pad(4))-\($m | pad(2))";
def h2_ymd($y; $m; $d): "\($y | pad(4))-\($m | pad(2))-\($d | pad(2))";
# The month before / after [y, m].
def h2_prev: if .[1] == 1 then [.[0] - 1, 12] else [.[0], .[1] - 1] end;
def h2_next: if .[1] == 12 then [.[0] + 1, 1] else [.[0], .[1] + 1] end;
# Cents as "123.45".
def h2_eur: "\(. / 100 | floor).\(. % 100 | pad(2))";
# A list as a files object {path: content}.
def h2_files: map({(.path): .content}) | add // {};
# An email-style local part of a full name: "Rhea Castillo" -> "rhea.castillo".
def h2_local: ascii_downcase | gsub(" "; ".");
# The reaction-free, reply-free Slack message of a seed.
def h2_msg($channel; $ts; $user; $text): {channel: $channel, ts: $ts, user: $user, text: $text};
# A Slack ts from whole seconds.
def h2_ts: "\(.).000200";
# Monday 0 ... Sunday 6.
def wdi: (. + 3) % 7;
def workday: wdi < 5;
def wday: ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"][wdi];
# "Tuesday, March 10" and "March 10".
def day_short: civil_date as $d | "\($d[5:7] | tonumber | month_name) \($d[8:10] | tonumber)";
def day_words: "\(wday), \(day_short)";
# Minutes of the day as HH:MM, and a day at a minute as YYYY-MM-DDTHH:MM.
def hm: "\(. / 60 | floor | pad(2)):\(. % 60 | pad(2))";
def at($min): "\(civil_date)T\($min | hm)";
# ---- people of this pack's own (no public pool, no background pool) ----
def h3_first: ["Anika", "Bastian", "Celia", "Dario", "Edda", "Florin", "Gwen", "Hamid", "Ilse", "Joaquim", "Kira", "Leandro",
  "Mirela", "Nadim", "Oona", "Piet", "Ronja", "Saskia", "Timo", "Ugo", "Valeska", "Wim", "Xenia", "Yannick", "Zaid", "Amara",
  "Benedikt", "Cosima", "Dorian", "Esra"];
def h3_last: ["Achterberg", "Brandao", "Castellanos", "Drozdov", "Engel", "Fagerlund", "Galloway", "Hakimi", "Iversen",
  "Jablonski", "Kaur", "Laine", "Mbeki", "Novak", "Ostrowski", "Pires", "Rahman", "Sato", "Thorsen", "Uribe", "Vidal",
  "Whitlock", "Yilmaz", "Zanetti", "Albers", "Becerra", "Coulibaly", "Devlin"];
# "Kira Laine" as kira.laine@<domain>.
def mail_at($domain): ascii_downcase | gsub(" "; ".") + "@" + $domain;
# ---- calendar ----
def h3_user: "alex@northwind.io";
def ev($id; $title; $day; $from; $minutes): {id: $id, title: $title, start: ($day | at($from)), end: ($day | at($from + $minutes))};
# ---- weather: places [id, name, region, country code, country, latitude, longitude, time zone, typical high] ----
def h3_places: [
  ["lisbon-pt", "Lisbon", "Lisbon", "PT", "Portugal", 38.72, -9.14, "Europe/Lisbon", 18],
  ["porto-pt", "Porto", "Porto", "PT", "Portugal", 41.15, -8.61, "Europe/Lisbon", 16],
  ["madrid-es", "Madrid", "Madrid", "ES", "Spain", 40.42, -3.7, "Europe/Madrid", 16],
  ["valencia-es", "Valencia", "Valencian Community", "ES", "Spain", 39.47, -0.38, "Europe/Madrid", 19],
  ["valencia-ve", "Valencia", "Carabobo", "VE", "Venezuela", 10.16, -68.0, "America/Caracas", 32],
  ["paris-fr", "Paris", "Ile-de-France", "FR", "France", 48.86, 2.35, "Europe/Paris", 12],
  ["paris-tx-us", "Paris", "Texas", "US", "United States", 33.66, -95.56, "America/Chicago", 20],
  ["london-gb", "London", "England", "GB", "United Kingdom", 51.51, -0.13, "Europe/London", 11],
  ["london-on-ca", "London", "Ontario", "CA", "Canada", 42.98, -81.25, "America/Toronto", 4],
  ["springfield-il-us", "Springfield", "Illinois", "US", "United States", 39.8, -89.64, "America/Chicago", 11],
  ["springfield-mo-us", "Springfield", "Missouri", "US", "United States", 37.21, -93.29, "America/Chicago", 14],
  ["springfield-ma-us", "Springfield", "Massachusetts", "US", "United States", 42.1, -72.59, "America/New_York", 7],
  ["portland-or-us", "Portland", "Oregon", "US", "United States", 45.52, -122.68, "America/Los_Angeles", 13],
  ["portland-me-us", "Portland", "Maine", "US", "United States", 43.66, -70.26, "America/New_York", 5],
  ["perth-au", "Perth", "Western Australia", "AU", "Australia", -31.95, 115.86, "Australia/Perth", 29],
  ["perth-gb", "Perth", "Scotland", "GB", "United Kingdom", 56.4, -3.43, "Europe/London", 9],
  ["birmingham-gb", "Birmingham", "England", "GB", "United Kingdom", 52.49, -1.89, "Europe/London", 10],
  ["birmingham-al-us", "Birmingham", "Alabama", "US", "United States", 33.52, -86.8, "America/Chicago", 20],
  ["oslo-no", "Oslo", "Oslo", "NO", "Norway", 59.91, 10.75, "Europe/Oslo", 3],
  ["berlin-de", "Berlin", "Berlin", "DE", "Germany", 52.52, 13.4, "Europe/Berlin", 9],
  ["munich-de", "Munich", "Bavaria", "DE", "Germany", 48.14, 11.58, "Europe/Berlin", 10],
  ["hamburg-de", "Hamburg", "Hamburg", "DE", "Germany", 53.55, 9.99, "Europe/Berlin", 8],
  ["rome-it", "Rome", "Lazio", "IT", "Italy", 41.9, 12.5, "Europe/Rome", 16],
  ["milan-it", "Milan", "Lombardy", "IT", "Italy", 45.46, 9.19, "Europe/Rome", 14],
  ["tokyo-jp", "Tokyo", "Tokyo", "JP", "Japan", 35.68, 139.69, "Asia/Tokyo", 13],
  ["osaka-jp", "Osaka", "Osaka", "JP", "Japan", 34.69, 135.5, "Asia/Tokyo", 14],
  ["sydney-au", "Sydney", "New South Wales", "AU", "Australia", -33.87, 151.21, "Australia/Sydney", 25],
  ["toronto-ca", "Toronto", "Ontario", "CA", "Canada", 43.65, -79.38, "America/Toronto", 4],
  ["vancouver-ca", "Vancouver", "British Columbia", "CA", "Canada", 49.28, -123.12, "America/Vancouver", 10],
  ["chicago-us", "Chicago", "Illinois", "US", "United States", 41.88, -87.63, "America/Chicago", 8],
  ["denver-us", "Denver", "Colorado", "US", "United States", 39.74, -104.99, "America/Denver", 12],
  ["seoul-kr", "Seoul", "Seoul", "KR", "South Korea", 37.57, 126.98, "Asia/Seoul", 10],
  ["reykjavik-is", "Reykjavik", "Capital Region", "IS", "Iceland", 64.15, -21.94, "Atlantic/Reykjavik", 3]]
  | map({id: .[0], name: .[1], region: .[2], country_code: .[3], country: .[4], latitude: .[5], longitude: .[6], timezone: .[7], base: .[8]});
def h3_place($id): first(h3_places[] | select(.id == $id));
def h3_shared($name): [h3_places[] | select(.name == $name)] | length > 1;
# Groups of ids sharing a name, and ids whose name no other place has.
def h3_namesakes: [h3_places[] | select(h3_shared(.name))] | group_by(.name) | map(map(.id));
def h3_unique_ids: [h3_places[] | select(h3_shared(.name) | not) | .id];
# How a user writes a place: "Portland, Maine" for a shared name, else "Lisbon, Portugal".
def h3_where: if h3_shared(.name) then "\(.name), \(.region)" else "\(.name), \(.country)" end;
def h3_condition($p; $high):
  if $p <= 14 then "clear" elif $p <= 29 then "partly_cloudy" elif $p <= 44 then "cloudy" elif $p <= 59 then "drizzle"
  elif $high <= 1 then "snow" elif $p <= 84 then "rain" elif $high >= 15 then "thunderstorm" else "rain" end;
# A place of the seed from its catalogue id, day 0 and 7 days of [high, low, rain %], with current conditions.
def h3_wx_place($id; $today; $days; $humidity; $wind):
  h3_place($id) as $k
  | [range(0; 7) as $i | {date: ($today + $i | civil_date), high_c: $days[$i][0], low_c: $days[$i][1],
      precipitation_probability: $days[$i][2], condition: h3_condition($days[$i][2]; $days[$i][0])}] as $daily
  | $k | del(.base)
  + {current: {temperature_c: ((($daily[0].high_c + $daily[0].low_c) / 2) | floor), humidity: $humidity, wind_kph: $wind, condition: $daily[0].condition},
     daily: $daily};
