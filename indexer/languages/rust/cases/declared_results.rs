pub struct Config;

impl Config {
    pub fn load() -> Result<Self, Error> {
        Ok(Config)
    }

    pub fn named(name: &str) -> Self {
        Config
    }

    pub fn check(&self) {
        let again = Self::named("x");
        again.validate();
    }
}

fn open() -> Option<Session> {
    None
}

fn make<T: Default>() -> T {
    T::default()
}

fn run() -> Result<(), Error> {
    let config = Config::load()?;
    config.validate();
    let whole = Config::load();
    whole.unwrap();
    let session = open()?;
    session.start();
    let named = Config::named("a");
    named.check();
    let made: u32 = make();
    let guessed = make::<Config>();
    guessed.check();
    Ok(())
}
// expect:
// entity struct Config 1-1
// entity method Config.load 4-6 parent=Config
// entity method Config.named 8-10 parent=Config
// entity method Config.check 12-15 parent=Config
// entity function open 18-20
// entity function make 22-24
// entity function run 26-39
// call Config.load -> Ok/1 @5
// call Config.check -> Config.named/1 @13
// call Config.check -> Config.validate/0 @14 -- typed by what this file says Config::named returns
// call run -> Config.load/0 @27 -- no call from make(): T::default() is a generic parameter's
// call run -> Config.validate/0 @28 -- `?` takes the Config out of Result<Self, Error>
// call run -> Config.load/0 @29
// call run -> Result.unwrap/0 @30
// call run -> open/0 @31
// call run -> Session.start/0 @32
// call run -> Config.named/1 @33
// call run -> Config.check/0 @34
// call run -> make/0 @35
// call run -> make/0 @36
// call run -> <expr>.check/0 @37 -- a generic function's result is not typed
// call run -> Ok/1 @38
