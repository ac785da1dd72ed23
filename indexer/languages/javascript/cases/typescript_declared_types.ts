class Service {
  private repo: Repo;
  constructor(private readonly http: Http, plain: Plain) {}
  load(id: string, cache?: ns.Cache<Item>) {
    this.repo.find(id);
    this.http.get(id);
    this.plain.x();
    cache.get(id);
    const parser: Parser = pick();
    parser.parse();
    const guess = new Guess();
    guess.run();
    id.trim();
  }
}

// expect:
// call Service.load -> Repo.find/1 @5
// call Service.load -> Http.get/1 @6
// call Service.load -> <self>.plain.x/0 @7
// call Service.load -> ns.Cache.get/1 @8
// call Service.load -> pick/0 @9
// call Service.load -> Parser.parse/0 @10
// call Service.load -> Guess/0 @11
// call Service.load -> Guess.run/0 @12 inferred
// call Service.load -> id.trim/0 @13
