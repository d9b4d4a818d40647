//! The background's own names: folders, files and words no template uses.

/// Side projects in `~/Tinkering`, with the files a project holds.
pub(super) const PROJECTS: &[&str] = &[
    "birdfeeder-cam",
    "sourdough-timer",
    "kiln-controller",
    "herbarium-index",
    "loom-patterns",
    "orrery-sim",
    "beehive-scale",
    "trellis-planner",
    "moth-trap-log",
    "sundial-calc",
];
pub(super) const MODULES: &[&str] = &["sensors", "display", "storage", "clock", "radio"];
pub(super) const CHANGES: &[&str] = &[
    "first working prototype",
    "moved the pins to a header",
    "readings every ten minutes",
    "dark theme for the display",
    "fixed drift after midnight",
    "battery lasts a week now",
];
pub(super) const PARTS: &[&str] = &["load cell", "servo", "e-ink panel", "thermocouple", "relay"];

/// Albums of `~/Pictures/<year>`.
pub(super) const ALBUMS: &[&str] = &[
    "kayak-weekend",
    "first-frost",
    "allotment",
    "lighthouse-walk",
    "cousins-visit",
    "autumn-market",
    "stargazing",
    "moss-garden",
    "fjord-ferry",
    "pottery-class",
];

/// Bands and records of `~/Music`, and its playlists.
pub(super) const BANDS: &[&str] = &[
    "Saltmarsh Radio",
    "Velvet Ptarmigan",
    "Ochre Parade",
    "Gull Choir",
    "Marimba Nights",
];
pub(super) const RECORDS: &[&str] = &[
    "Low Clouds",
    "Paper Boats",
    "Night Trains",
    "Salt Roads",
    "Glass Hours",
    "Blue Hour Sessions",
];
pub(super) const TRACKS: &[&str] = &[
    "slow-river",
    "paper-moon",
    "wires",
    "hollow-bell",
    "kite-string",
    "morning-ferry",
    "long-shadows",
    "quiet-engine",
    "ash-and-salt",
];
pub(super) const PLAYLISTS: &[&str] = &["long-walks", "rainy-day", "kitchen-radio", "night-drive"];

/// `~/Paperwork/<year>/<kind>/<file>`.
pub(super) const PAPERS: &[(&str, &[&str])] = &[
    ("taxes", &["tax-summary.txt", "donations.txt"]),
    ("insurance", &["home-policy.txt", "travel-cover.txt"]),
    ("utilities", &["electricity", "heating", "internet"]),
    ("car", &["service-record.txt", "registration.txt"]),
    ("housing", &["lease.txt", "meter-readings.txt"]),
];

/// `~/Trips/<year>-<place>`.
pub(super) const PLACES: &[&str] = &[
    "tromso",
    "ljubljana",
    "hobart",
    "cusco",
    "galway",
    "tbilisi",
    "kotor",
    "zanzibar",
];
pub(super) const DAYS: &[&str] = &[
    "walk the old town",
    "boat out to the islands",
    "museum in the morning, market after",
    "hike to the viewpoint",
    "rest day",
    "cooking class",
];
pub(super) const BOOKINGS: &[&str] = &["train", "ferry", "hostel", "flight"];

/// `~/Cookbook/<course>/<dish>.md`, with what goes in a dish of the course.
pub(super) const COURSES: &[(&str, &[&str], &[&str])] = &[
    (
        "soups",
        &["lentil-soup", "miso-broth", "pumpkin-soup"],
        &[
            "1 onion",
            "2 cloves garlic",
            "400 ml stock",
            "1 tsp cumin",
            "200 g red lentils",
        ],
    ),
    (
        "breads",
        &["focaccia", "rye-loaf", "flatbread"],
        &[
            "500 g flour",
            "7 g yeast",
            "1 tsp salt",
            "2 tbsp olive oil",
            "350 ml warm water",
        ],
    ),
    (
        "dinners",
        &["chickpea-curry", "bean-chili", "mushroom-pie"],
        &[
            "1 tin chickpeas",
            "1 tin black beans",
            "250 g mushrooms",
            "1 onion",
            "1 tsp cumin",
        ],
    ),
    (
        "sweets",
        &["plum-cake", "oat-cookies", "apple-crumble"],
        &[
            "100 g butter",
            "150 g oats",
            "120 g sugar",
            "4 plums",
            "2 apples",
        ],
    ),
];

/// Services beside the seed's system folders (`/etc/syncthing`, `/srv/jellyfin`, ...).
pub(super) const SERVICES: &[&str] = &[
    "syncthing",
    "mosquitto",
    "jellyfin",
    "restic",
    "caddy",
    "unbound",
    "chrony",
    "minio",
];
pub(super) const EVENTS: &[&str] = &[
    "INFO started",
    "INFO config reloaded",
    "WARN slow response from peer",
    "INFO snapshot complete",
    "INFO listening",
];
