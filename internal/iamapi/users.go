package iamapi

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
)

type xmlTag struct {
	Key, Value string
}

type xmlUser struct {
	Path       string
	UserName   string
	UserId     string // the element name is AWS's
	Arn        string
	CreateDate string
	Tags       *[]xmlTag `xml:"Tags>member,omitempty"`
}

func tagsOut(tags []catalog.Tag) *[]xmlTag {
	if len(tags) == 0 {
		return nil
	}
	out := make([]xmlTag, len(tags))
	for i, t := range tags {
		out[i] = xmlTag(t)
	}
	return &out
}

// userOut is a user's record in IAM's form.
func (c *call) userOut(u catalog.User) (xmlUser, error) {
	path, err := c.h.store.UserPath(c.ctx, u.Tenant, u.Name)
	if err != nil {
		return xmlUser{}, catalogErr(err, "user with name "+u.Name)
	}
	return xmlUser{Path: path, UserName: u.Name, UserId: userID(u.CanonicalID), Arn: userARN(u.Tenant, path, u.Name), CreateDate: isoTime(u.CreatedAt)}, nil
}

// user reads the UserName parameter (the caller when absent and
// optional) and checks the call may act on that user.
func (c *call) user(action string, optional bool) (catalog.User, string, error) {
	name, err := c.optionalName("UserName", 64)
	if err != nil {
		return catalog.User{}, "", err
	}
	if name == "" {
		if !optional {
			_, err := c.name("UserName", 64)
			return catalog.User{}, "", err
		}
		name = c.id.User
	}
	u, err := c.h.store.GetUser(c.ctx, c.tenant, name)
	arn := userARN(c.tenant, "/", name)
	if err == nil {
		if p, perr := c.h.store.UserPath(c.ctx, c.tenant, name); perr == nil {
			arn = userARN(c.tenant, p, name)
		}
	}
	// Authorize before telling whether the user exists.
	if aerr := c.allowed(action, arn); aerr != nil {
		return catalog.User{}, "", aerr
	}
	if err != nil {
		return catalog.User{}, "", catalogErr(err, "user with name "+name)
	}
	return u, arn, nil
}

var userActions = map[string]action{
	"CreateUser": func(c *call) (any, error) {
		name, err := c.name("UserName", 64)
		if err != nil {
			return nil, err
		}
		path, err := c.path("Path")
		if err != nil {
			return nil, err
		}
		tags, err := c.tags()
		if err != nil {
			return nil, err
		}
		if err := c.allowed("CreateUser", userARN(c.tenant, path, name)); err != nil {
			return nil, err
		}
		if c.form.has("PermissionsBoundary") {
			return nil, errf(http.StatusNotImplemented, "NotImplemented", "Permissions boundaries are not implemented")
		}
		u := catalog.User{Tenant: c.tenant, Name: name, Role: catalog.RoleUser, CanonicalID: iam.NewCanonicalID(), CreatedAt: time.Now().UTC()}
		if err := c.changed(c.h.store.CreateUser(c.ctx, u)); err != nil {
			return nil, catalogErr(err, "user with name "+name)
		}
		if path != "/" {
			if err := c.changed(c.h.store.SetUserPath(c.ctx, c.tenant, name, path)); err != nil {
				return nil, catalogErr(err, "user with name "+name)
			}
		}
		if len(tags) > 0 {
			if err := c.changed(c.h.store.TagPrincipal(c.ctx, c.tenant, catalog.PrincipalUser, name, tags)); err != nil {
				return nil, catalogErr(err, "user with name "+name)
			}
		}
		out, err := c.userOut(u)
		out.Tags = tagsOut(tags)
		return struct{ User xmlUser }{out}, err
	},
	"GetUser": func(c *call) (any, error) {
		u, _, err := c.user("GetUser", true)
		if err != nil {
			return nil, err
		}
		out, err := c.userOut(u)
		if err != nil {
			return nil, err
		}
		tags, err := c.h.store.PrincipalTags(c.ctx, c.tenant, catalog.PrincipalUser, u.Name)
		out.Tags = tagsOut(tags)
		return struct{ User xmlUser }{out}, catalogErr(err, "user with name "+u.Name)
	},
	"ListUsers": func(c *call) (any, error) {
		if err := c.allowed("ListUsers", userARN(c.tenant, "/", "*")); err != nil {
			return nil, err
		}
		out, err := c.usersOut(nil)
		if err != nil {
			return nil, err
		}
		if out, err = pathPrefix(c, out, func(u xmlUser) string { return u.Path }); err != nil {
			return nil, err
		}
		out, pg, err := paginate(c, out, func(u xmlUser) string { return u.UserName })
		return struct {
			Users []xmlUser `xml:"Users>member"`
			page
		}{out, pg}, err
	},
	"UpdateUser": func(c *call) (any, error) {
		u, _, err := c.user("UpdateUser", false)
		if err != nil {
			return nil, err
		}
		newName, err := c.optionalName("NewUserName", 64)
		if err != nil {
			return nil, err
		}
		if c.form.has("NewPath") {
			p, err := c.path("NewPath")
			if err != nil {
				return nil, err
			}
			if err := c.changed(c.h.store.SetUserPath(c.ctx, c.tenant, u.Name, p)); err != nil {
				return nil, catalogErr(err, "user with name "+u.Name)
			}
		}
		if newName != "" && newName != u.Name {
			if err := c.allowed("UpdateUser", userARN(c.tenant, "/", newName)); err != nil {
				return nil, err
			}
			if err := c.changed(c.h.store.RenameUser(c.ctx, c.tenant, u.Name, newName)); err != nil {
				return nil, catalogErr(err, "user with name "+newName)
			}
		}
		return nil, nil
	},
	"DeleteUser": func(c *call) (any, error) {
		u, _, err := c.user("DeleteUser", false)
		if err != nil {
			return nil, err
		}
		if u.Name == c.id.User {
			// AWS lets a user delete itself; here it would also take the
			// key signing this call. Refused, so an admin cannot lock the
			// tenant out by accident.
			return nil, errf(http.StatusConflict, "DeleteConflict", "Cannot delete the user signing the request.")
		}
		return nil, catalogErr(c.changed(c.h.store.DeleteIAMUser(c.ctx, c.tenant, u.Name)), "user with name "+u.Name)
	},
	"TagUser": func(c *call) (any, error) {
		u, _, err := c.user("TagUser", false)
		if err != nil {
			return nil, err
		}
		tags, err := c.tags()
		if err != nil {
			return nil, err
		}
		return nil, catalogErr(c.changed(c.h.store.TagPrincipal(c.ctx, c.tenant, catalog.PrincipalUser, u.Name, tags)), "user with name "+u.Name)
	},
	"UntagUser": func(c *call) (any, error) {
		u, _, err := c.user("UntagUser", false)
		if err != nil {
			return nil, err
		}
		return nil, catalogErr(c.changed(c.h.store.UntagPrincipal(c.ctx, c.tenant, catalog.PrincipalUser, u.Name, c.list("TagKeys"))), "user with name "+u.Name)
	},
	"ListUserTags": func(c *call) (any, error) {
		u, _, err := c.user("ListUserTags", false)
		if err != nil {
			return nil, err
		}
		return c.listTags(catalog.PrincipalUser, u.Name)
	},
}

// usersOut returns the tenant's users of those names (nil: all), sorted,
// in IAM's form, in two catalog reads however many they are; a name no
// longer a user's is left out.
func (c *call) usersOut(names []string) ([]xmlUser, error) {
	us, err := c.h.store.ListUsers(c.ctx, c.tenant)
	if err != nil {
		return nil, err
	}
	paths, err := c.h.store.UserPaths(c.ctx, c.tenant)
	if err != nil {
		return nil, err
	}
	want := make(map[string]bool, len(names))
	for _, n := range names {
		want[n] = true
	}
	out := make([]xmlUser, 0, len(names))
	for _, u := range us {
		if names == nil || want[u.Name] {
			path := or(paths[u.Name], "/")
			out = append(out, xmlUser{Path: path, UserName: u.Name, UserId: userID(u.CanonicalID), Arn: userARN(u.Tenant, path, u.Name), CreateDate: isoTime(u.CreatedAt)})
		}
	}
	return out, nil
}

func (c *call) listTags(kind, name string) (any, error) {
	tags, err := c.h.store.PrincipalTags(c.ctx, c.tenant, kind, name)
	if err != nil {
		return nil, catalogErr(err, kind+" with name "+name)
	}
	out, pg, err := paginate(c, tags, func(t catalog.Tag) string { return strings.ToLower(t.Key) })
	xs := make([]xmlTag, len(out))
	for i, t := range out {
		xs[i] = xmlTag(t)
	}
	return struct {
		Tags []xmlTag `xml:"Tags>member"`
		page
	}{xs, pg}, err
}

type xmlGroup struct {
	Path       string
	GroupName  string
	GroupId    string // the element name is AWS's
	Arn        string
	CreateDate string
}

func groupOut(g catalog.Group) xmlGroup {
	return xmlGroup{Path: g.Path, GroupName: g.Name, GroupId: g.ID, Arn: entityARN(g.Tenant, "group", g.Path, g.Name), CreateDate: isoTime(g.Created)}
}

// group reads GroupName and checks the call may act on the group.
func (c *call) group(action string) (catalog.Group, error) {
	name, err := c.name("GroupName", 128)
	if err != nil {
		return catalog.Group{}, err
	}
	g, err := c.h.store.GetGroup(c.ctx, c.tenant, name)
	arn := entityARN(c.tenant, "group", g.Path, name)
	if aerr := c.allowed(action, arn); aerr != nil {
		return g, aerr
	}
	return g, catalogErr(err, "group with name "+name)
}

var groupActions = map[string]action{
	"CreateGroup": func(c *call) (any, error) {
		name, err := c.name("GroupName", 128)
		if err != nil {
			return nil, err
		}
		path, err := c.path("Path")
		if err != nil {
			return nil, err
		}
		if err := c.allowed("CreateGroup", entityARN(c.tenant, "group", path, name)); err != nil {
			return nil, err
		}
		g := catalog.Group{Tenant: c.tenant, Name: name, Path: path, ID: newID("AGPA"), Created: time.Now().UTC()}
		if err := c.changed(c.h.store.CreateGroup(c.ctx, g)); err != nil {
			return nil, catalogErr(err, "group with name "+name)
		}
		return struct{ Group xmlGroup }{groupOut(g)}, nil
	},
	"GetGroup": func(c *call) (any, error) {
		g, err := c.group("GetGroup")
		if err != nil {
			return nil, err
		}
		members, err := c.h.store.GroupMembers(c.ctx, c.tenant, g.Name)
		if err != nil {
			return nil, catalogErr(err, "group with name "+g.Name)
		}
		users, err := c.usersOut(members)
		if err != nil {
			return nil, err
		}
		users, pg, err := paginate(c, users, func(u xmlUser) string { return u.UserName })
		return struct {
			Group xmlGroup
			Users []xmlUser `xml:"Users>member"`
			page
		}{groupOut(g), users, pg}, err
	},
	"ListGroups": func(c *call) (any, error) {
		if err := c.allowed("ListGroups", entityARN(c.tenant, "group", "/", "*")); err != nil {
			return nil, err
		}
		gs, err := c.h.store.ListGroups(c.ctx, c.tenant)
		if err != nil {
			return nil, err
		}
		return c.groupList(gs)
	},
	"DeleteGroup": func(c *call) (any, error) {
		g, err := c.group("DeleteGroup")
		if err != nil {
			return nil, err
		}
		return nil, catalogErr(c.changed(c.h.store.DeleteGroup(c.ctx, c.tenant, g.Name)), "group with name "+g.Name)
	},
	"AddUserToGroup": func(c *call) (any, error) {
		g, err := c.group("AddUserToGroup")
		if err != nil {
			return nil, err
		}
		user, err := c.name("UserName", 64)
		if err != nil {
			return nil, err
		}
		return nil, catalogErr(c.changed(c.h.store.AddUserToGroup(c.ctx, c.tenant, g.Name, user)), "user with name "+user)
	},
	"RemoveUserFromGroup": func(c *call) (any, error) {
		g, err := c.group("RemoveUserFromGroup")
		if err != nil {
			return nil, err
		}
		user, err := c.name("UserName", 64)
		if err != nil {
			return nil, err
		}
		if _, err := c.h.store.GetUser(c.ctx, c.tenant, user); err != nil {
			return nil, catalogErr(err, "user with name "+user)
		}
		return nil, catalogErr(c.changed(c.h.store.RemoveUserFromGroup(c.ctx, c.tenant, g.Name, user)), "user "+user+" in group "+g.Name)
	},
	"ListGroupsForUser": func(c *call) (any, error) {
		u, _, err := c.user("ListGroupsForUser", false)
		if err != nil {
			return nil, err
		}
		gs, err := c.h.store.UserGroups(c.ctx, c.tenant, u.Name)
		if err != nil {
			return nil, catalogErr(err, "user with name "+u.Name)
		}
		return c.groupList(gs)
	},
}

func (c *call) groupList(gs []catalog.Group) (any, error) {
	gs, err := pathPrefix(c, gs, func(g catalog.Group) string { return g.Path })
	if err != nil {
		return nil, err
	}
	gs, pg, err := paginate(c, gs, func(g catalog.Group) string { return strings.ToLower(g.Name) })
	out := make([]xmlGroup, len(gs))
	for i, g := range gs {
		out[i] = groupOut(g)
	}
	return struct {
		Groups []xmlGroup `xml:"Groups>member"`
		page
	}{out, pg}, err
}

// Access keys.

type xmlKey struct {
	UserName        string
	AccessKeyId     string // the element name is AWS's
	Status          string
	SecretAccessKey string `xml:",omitempty"`
	CreateDate      string
}

func keyStatus(s string) string {
	if s == catalog.KeyActive {
		return "Active"
	}
	return "Inactive"
}

// key finds the caller-named user's access key AccessKeyId.
func (c *call) key(action string) (catalog.AccessKey, error) {
	u, _, err := c.user(action, true)
	if err != nil {
		return catalog.AccessKey{}, err
	}
	ak := c.form.get("AccessKeyId")
	if len(ak) < 16 || len(ak) > 128 {
		return catalog.AccessKey{}, validation("1 validation error detected: Value '%s' at 'accessKeyId' failed to satisfy constraint: Member must have length between 16 and 128", ak)
	}
	k, err := c.h.store.GetAccessKey(c.ctx, ak)
	if errors.Is(err, catalog.ErrNoSuchAccessKey) || err == nil && (k.Tenant != c.tenant || k.User != u.Name) {
		return catalog.AccessKey{}, noSuch("The Access Key with id %s cannot be found.", ak)
	}
	return k, err
}

var keyActions = map[string]action{
	"CreateAccessKey": func(c *call) (any, error) {
		u, _, err := c.user("CreateAccessKey", true)
		if err != nil {
			return nil, err
		}
		have, err := c.h.store.ListAccessKeys(c.ctx, c.tenant, u.Name)
		if err != nil {
			return nil, err
		}
		if len(have) >= catalog.MaxAccessKeys {
			return nil, errf(http.StatusConflict, "LimitExceeded", "Cannot exceed quota for AccessKeysPerUser: %d", catalog.MaxAccessKeys)
		}
		ak, secret := iam.NewAccessKey()
		k := catalog.AccessKey{AccessKey: ak, SecretSealed: c.h.sealer.Seal(secret, ak), Owner: u.CanonicalID, DisplayName: u.Name,
			CreatedAt: time.Now().UTC(), Tenant: c.tenant, User: u.Name, Kind: catalog.KeyUser, Status: catalog.KeyActive}
		if err := c.changed(c.h.store.PutAccessKey(c.ctx, k)); err != nil {
			return nil, err
		}
		return struct{ AccessKey xmlKey }{xmlKey{UserName: u.Name, AccessKeyId: ak, Status: "Active", SecretAccessKey: secret, CreateDate: isoTime(k.CreatedAt)}}, nil
	},
	"ListAccessKeys": func(c *call) (any, error) {
		u, _, err := c.user("ListAccessKeys", true)
		if err != nil {
			return nil, err
		}
		ks, err := c.h.store.ListAccessKeys(c.ctx, c.tenant, u.Name)
		if err != nil {
			return nil, err
		}
		ks, pg, err := paginate(c, ks, func(k catalog.AccessKey) string { return k.AccessKey })
		out := make([]xmlKey, len(ks))
		for i, k := range ks {
			out[i] = xmlKey{UserName: u.Name, AccessKeyId: k.AccessKey, Status: keyStatus(k.Status), CreateDate: isoTime(k.CreatedAt)}
		}
		return struct {
			AccessKeyMetadata []xmlKey `xml:"AccessKeyMetadata>member"`
			page
		}{out, pg}, err
	},
	"UpdateAccessKey": func(c *call) (any, error) {
		k, err := c.key("UpdateAccessKey")
		if err != nil {
			return nil, err
		}
		var status string
		switch c.form.get("Status") {
		case "Active":
			status = catalog.KeyActive
		case "Inactive":
			status = catalog.KeyDisable
		default:
			return nil, validation("1 validation error detected: Value '%s' at 'status' failed to satisfy constraint: Member must satisfy enum value set: [Active, Inactive]", c.form.get("Status"))
		}
		return nil, catalogErr(c.changed(c.h.store.UpdateAccessKey(c.ctx, k.AccessKey, status, k.Expires)), "access key "+k.AccessKey)
	},
	"DeleteAccessKey": func(c *call) (any, error) {
		k, err := c.key("DeleteAccessKey")
		if err != nil {
			return nil, err
		}
		return nil, catalogErr(c.changed(c.h.store.DeleteAccessKey(c.ctx, k.AccessKey)), "access key "+k.AccessKey)
	},
	"GetAccessKeyLastUsed": func(c *call) (any, error) {
		ak := c.form.get("AccessKeyId")
		k, err := c.h.store.GetAccessKey(c.ctx, ak)
		if errors.Is(err, catalog.ErrNoSuchAccessKey) || err == nil && k.Tenant != c.tenant {
			return nil, errf(http.StatusForbidden, "AccessDenied", "User: %s is not authorized to perform: iam:GetAccessKeyLastUsed on resource: access key %s", callerARN(c.id), ak)
		}
		if err != nil {
			return nil, err
		}
		if err := c.allowed("GetAccessKeyLastUsed", userARN(c.tenant, "/", k.User)); err != nil {
			return nil, err
		}
		// Use is not recorded per key: AWS's answer for a key never used.
		return struct {
			UserName          string
			AccessKeyLastUsed struct{ ServiceName, Region string }
		}{k.User, struct{ ServiceName, Region string }{"N/A", "N/A"}}, nil
	},
}
